import { contract } from '@nestegg/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { isPremiumOrAdmin, sessionOf } from '../../../lib/session.js';
import type { EntryActor } from './entries.service.js';

/** The caller as a writer of entries: tags are for PREMIUM members and admins. */
function actorOf(request: FastifyRequest): EntryActor {
  const session = sessionOf(request);
  return { memberId: session.memberId, mayUseTags: isPremiumOrAdmin(session) };
}

/**
 * Ledger entries (`/api/account/entries`): list, create, get, update, delete. Card-notification parsing,
 * pending entries and their confirmation are served by the card-notifications module.
 */
export default async function entriesModule(app: FastifyInstance) {
  const { entries } = app.services;
  const { list, create, get, update, delete: remove } = contract.ledger.entries;
  registerContractRouter(
    app,
    { list, create, get, update, delete: remove },
    {
      list: async ({ query, request }) => ({
        status: 200,
        body: await entries.list(sessionOf(request).memberId, query),
      }),
      create: async ({ body, request }) => ({ status: 201, body: await entries.create(actorOf(request), body) }),
      get: async ({ params, request }) => ({
        status: 200,
        body: await entries.get(sessionOf(request).memberId, params.id),
      }),
      update: async ({ params, body, request }) => ({
        status: 200,
        body: await entries.update(actorOf(request), params.id, body),
      }),
      delete: async ({ params, request }) => {
        await entries.delete(sessionOf(request).memberId, params.id);
        return { status: 204, body: undefined };
      },
    },
  );
}
