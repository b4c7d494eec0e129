import type { MemberPlan, MemberRole } from '@nestegg/db';
import type { FastifyRequest } from 'fastify';
import type { ActiveSession } from '../modules/auth/session.store.js';
import { UnauthenticatedError } from './errors.js';

/** The caller's session on a route whose guard required one. */
export function sessionOf(request: Pick<FastifyRequest, 'session'>): ActiveSession {
  if (!request.session) throw new UnauthenticatedError();
  return request.session;
}

/** PREMIUM members and admins: premium routes and features are theirs, the FREE limits are not. */
export function isPremiumOrAdmin(member: { plan: MemberPlan; role: MemberRole }): boolean {
  return member.plan === 'PREMIUM' || member.role === 'ADMIN';
}
