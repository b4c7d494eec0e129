import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

/** Quick-entry templates (`/api/account/quick-entries`): list, create, update, delete. */
export default async function quickEntriesModule(app: FastifyInstance) {
  const { quickEntries } = app.services;
  registerContractRouter(app, contract.ledger.quickEntries, {
    list: async ({ request }) => ({
      status: 200,
      body: { items: await quickEntries.list(sessionOf(request).memberId) },
    }),
    create: async ({ body, request }) => ({
      status: 201,
      body: await quickEntries.create(sessionOf(request).memberId, body),
    }),
    update: async ({ params, body, request }) => ({
      status: 200,
      body: await quickEntries.update(sessionOf(request).memberId, params.id, body),
    }),
    delete: async ({ params, request }) => {
      await quickEntries.delete(sessionOf(request).memberId, params.id);
      return { status: 204, body: undefined };
    },
  });
}
