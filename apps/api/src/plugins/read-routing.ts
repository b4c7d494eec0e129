import { runWithReadTarget } from '@nestegg/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { contractRouteOf } from '../lib/contract-route.js';
import type { ReadConsistency, ReadReplicas } from '../lib/read-replicas.js';

/**
 * The routes whose reads a replica may serve, and how consistent they must be (decision DB20; the lists of
 * docs/scaling.md). Their services send those reads through `reader`; every other route's reads, and every write
 * and transaction, go to the primary. `read-your-writes` applies to a signed-in caller; an anonymous one has no
 * writes to see and reads as `lag-tolerant`.
 */
export const READ_ROUTES: Readonly<Record<string, ReadConsistency>> = {
  // The board: other members' posts and votes may lag; the viewer's own (their post, their vote) may not.
  'GET /api/board/posts': 'read-your-writes',
  'GET /api/board/posts/:id': 'read-your-writes',
  'GET /api/board/posts/:id/comments': 'read-your-writes',
  'GET /api/board/tag-groups': 'lag-tolerant',
  'GET /api/admin/members': 'lag-tolerant',
  // The member's ledger: a device reads right after its own writes.
  'GET /api/account/entries': 'read-your-writes',
  'GET /api/account/wallets': 'read-your-writes',
  'GET /api/account/categories': 'read-your-writes',
  'GET /api/account/tags': 'read-your-writes',
  'GET /api/account/quick-entries': 'read-your-writes',
  'GET /api/account/recurrings': 'read-your-writes',
  'GET /api/account/budgets': 'read-your-writes',
  'GET /api/account/budgets/onetime': 'read-your-writes',
  'GET /api/account/budgets/income': 'read-your-writes',
  'GET /api/account/changes': 'read-your-writes',
  'GET /api/account/stats/monthly': 'read-your-writes',
  'GET /api/account/stats/yearly': 'read-your-writes',
  'GET /api/account/stats/trend': 'read-your-writes',
  'GET /api/account/stats/merchants': 'read-your-writes',
};

function routeKey(request: FastifyRequest): string | undefined {
  const route = contractRouteOf(request);
  return route ? `${route.method} ${route.path}` : undefined;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Registered only with `DATABASE_READ_URL` (without it nothing here runs, decision DB20). Before a listed route's
 * handler, picks the replica (or the primary) for its reads and runs the handler with it as the read target; after
 * a signed-in member's successful write, before the answer leaves, keeps the primary's WAL position under the
 * member (DB24), so that the member's next read waits for a replica that has replayed it.
 */
export default fp<{ readReplicas: ReadReplicas }>(
  async (app, { readReplicas }) => {
    // Callback style: `done` is called inside the read target's async context, so the handler runs within it.
    app.addHook('preHandler', (request, _reply, done) => {
      const key = request.method === 'GET' ? routeKey(request) : undefined;
      const consistency = key ? READ_ROUTES[key] : undefined;
      if (!consistency) return done();
      const memberId = request.session?.memberId ?? null;
      readReplicas
        .choose(memberId === null ? 'lag-tolerant' : consistency, memberId)
        .then((target) => runWithReadTarget(target, () => done()), done)
        .catch((error: unknown) => request.log.error({ err: error }, 'read routing: the request could not go on'));
    });

    app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload, done) => {
      const memberId = request.session?.memberId;
      if (memberId === undefined || !WRITE_METHODS.has(request.method) || reply.statusCode >= 300) {
        return done(null, payload);
      }
      readReplicas.recordWrite(memberId).then(() => done(null, payload));
    });
  },
  { name: 'read-routing', dependencies: ['infrastructure', 'authentication'] },
);
