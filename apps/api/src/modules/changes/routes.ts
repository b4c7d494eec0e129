import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../lib/contract-router.js';
import { sessionOf } from '../../lib/session.js';

/** Delta sync (`GET /api/account/changes`): what changed in the caller's ledger since a cursor. */
export default async function changesModule(app: FastifyInstance): Promise<void> {
  const { changes } = app.services;
  registerContractRouter(app, contract.ledger.changes, {
    list: async ({ query, request }) => ({
      status: 200,
      body: await changes.since({ memberId: sessionOf(request).memberId, since: query.since, limit: query.limit }),
    }),
  });
}
