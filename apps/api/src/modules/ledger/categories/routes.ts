import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

/** Member categories (`/api/account/categories`): two levels, reorder, import of the defaults. */
export default async function categoriesModule(app: FastifyInstance): Promise<void> {
  const { categories } = app.services;
  const memberOf = (request: Parameters<typeof sessionOf>[0]) => sessionOf(request).memberId;
  registerContractRouter(app, contract.ledger.categories, {
    list: async ({ query, request }) => ({
      status: 200,
      body: { items: await categories.list(memberOf(request), query.type) },
    }),
    create: async ({ body, request }) => ({ status: 201, body: await categories.create(memberOf(request), body) }),
    reorder: async ({ body, request }) => {
      await categories.reorder(memberOf(request), body.ids);
      return { status: 204, body: undefined };
    },
    import: async ({ request }) => ({ status: 200, body: await categories.import(memberOf(request)) }),
    update: async ({ params, body, request }) => ({
      status: 200,
      body: await categories.update(memberOf(request), params.id, body),
    }),
    delete: async ({ params, request }) => {
      await categories.delete(memberOf(request), params.id);
      return { status: 204, body: undefined };
    },
  });
}
