import type { FastifyRequest } from 'fastify';
import { sessionOf } from '../../../lib/session.js';

/** Who reads or writes board content: admins see and may change everything. */
export interface Viewer {
  /** Null for an anonymous reader. */
  memberId: number | null;
  isAdmin: boolean;
}

/** A signed-in viewer: who writes, votes or reports (admins also reach blocked content). */
export interface Writer extends Viewer {
  memberId: number;
}

/** The caller on a route that reads the board with or without a session. */
export function viewerOf(request: FastifyRequest): Viewer {
  const session = request.session;
  return { memberId: session?.memberId ?? null, isAdmin: session?.role === 'ADMIN' };
}

/** The caller on a route that requires a session. */
export function writerOf(request: FastifyRequest): Writer {
  const session = sessionOf(request);
  return { memberId: session.memberId, isAdmin: session.role === 'ADMIN' };
}
