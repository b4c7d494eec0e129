import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

/** Ledger tags (`/api/account/tags`); premium (the contract's metadata guards every route). */
export default async function tagsModule(app: FastifyInstance): Promise<void> {
  const { tags } = app.services;
  const memberOf = (request: Parameters<typeof sessionOf>[0]) => sessionOf(request).memberId;
  registerContractRouter(app, contract.ledger.tags, {
    list: async ({ request }) => ({ status: 200, body: { items: await tags.list(memberOf(request)) } }),
    create: async ({ body, request }) => ({ status: 201, body: await tags.create(memberOf(request), body.name) }),
    reorder: async ({ body, request }) => {
      await tags.reorder(memberOf(request), body.ids);
      return { status: 204, body: undefined };
    },
    update: async ({ params, body, request }) => ({
      status: 200,
      body: await tags.update(memberOf(request), params.id, body.name),
    }),
    delete: async ({ params, request }) => {
      await tags.delete(memberOf(request), params.id);
      return { status: 204, body: undefined };
    },
  });
}
