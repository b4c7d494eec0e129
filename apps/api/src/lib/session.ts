import type { MemberPlan, MemberRole } from '@nestegg/db';
import type { FastifyRequest } from 'fastify';
import { UnauthenticatedError } from './errors.js';

/** What a request knows about its caller: held in the session, so guards need no member query. */
export interface SessionMember {
  memberId: number;
  displayName: string;
  plan: MemberPlan;
  role: MemberRole;
}

export interface ActiveSession extends SessionMember {
  tokenHash: string;
  rememberMe: boolean;
  expiresAt: Date;
  /** Last re-authentication in this session (password gate or fresh provider token), or null. */
  reauthenticatedAt: Date | null;
}

/** The caller's session on a route whose guard required one. */
export function sessionOf(request: Pick<FastifyRequest, 'session'>): ActiveSession {
  if (!request.session) throw new UnauthenticatedError();
  return request.session;
}

/** PREMIUM members and admins: premium routes and features are theirs, the FREE limits are not. */
export function isPremiumOrAdmin(member: { plan: MemberPlan; role: MemberRole }): boolean {
  return member.plan === 'PREMIUM' || member.role === 'ADMIN';
}
