import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

/** Recurring transactions (`/api/account/recurrings`); the billing worker posts their entries. */
export default async function recurringsModule(app: FastifyInstance): Promise<void> {
  const { recurrings } = app.services;
  registerContractRouter(app, contract.ledger.recurrings, {
    list: async ({ request }) => ({
      status: 200,
      body: { items: await recurrings.list(sessionOf(request).memberId) },
    }),
    create: async ({ body, request }) => ({ status: 201, body: await recurrings.create(sessionOf(request), body) }),
    update: async ({ params, body, request }) => ({
      status: 200,
      body: await recurrings.update(sessionOf(request).memberId, params.id, body),
    }),
    delete: async ({ params, request }) => {
      await recurrings.delete(sessionOf(request).memberId, params.id);
      return { status: 204, body: undefined };
    },
  });
}
