import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../../lib/errors.js';
import { sessionOf } from '../../../lib/session.js';
import type { AuthHandlers } from './handlers.js';

/** "Where am I signed in": the member's sessions, and ending one or all others (ASVS 3.3.4). */
export function sessionHandlers(
  app: FastifyInstance,
): AuthHandlers<'listSessions' | 'endSession' | 'endOtherSessions'> {
  const { sessions } = app.services;
  return {
    listSessions: async ({ request }) => {
      const current = sessionOf(request);
      const rows = await sessions.listOf(current.memberId);
      return {
        status: 200,
        body: {
          items: rows.map((row) => ({
            id: row.id,
            current: row.tokenHash === current.tokenHash,
            userAgent: row.userAgent,
            createdAt: row.createdAt.toISOString(),
            lastSeenAt: row.lastSeenAt.toISOString(),
            expiresAt: row.expiresAt.toISOString(),
          })),
        },
      };
    },
    endSession: async ({ params, request }) => {
      if (!(await sessions.destroyOne(sessionOf(request).memberId, params.id))) throw new NotFoundError('session');
      return { status: 204, body: undefined };
    },
    endOtherSessions: async ({ request }) => {
      const current = sessionOf(request);
      const ended = await sessions.destroyAllOf(current.memberId, { except: current.tokenHash });
      return { status: 200, body: { ended: ended.length } };
    },
  };
}
