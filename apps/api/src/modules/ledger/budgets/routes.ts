import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

/** Budgets, one-time budgets and expected income (`/api/account/budgets…`); premium (contract metadata). */
export default async function budgetsModule(app: FastifyInstance): Promise<void> {
  const { budgets } = app.services;
  const memberOf = (request: Parameters<typeof sessionOf>[0]) => sessionOf(request).memberId;
  const noContent = { status: 204, body: undefined } as const;
  registerContractRouter(app, contract.ledger.budgets, {
    list: async ({ query, request }) => ({
      status: 200,
      body: await budgets.listMonth(memberOf(request), query.year, query.month),
    }),
    create: async ({ body, request }) => ({ status: 201, body: await budgets.create(memberOf(request), body) }),
    update: async ({ params, body, request }) => ({
      status: 200,
      body: await budgets.update(memberOf(request), params.id, body),
    }),
    delete: async ({ params, request }) => {
      await budgets.delete(memberOf(request), params.id);
      return noContent;
    },
    copy: async ({ body, request }) => ({
      status: 200,
      body: { copied: await budgets.copy(memberOf(request), body) },
    }),
    listOnetime: async ({ query, request }) => ({
      status: 200,
      body: { items: await budgets.listOnetime(memberOf(request), query) },
    }),
    createOnetime: async ({ body, request }) => ({
      status: 201,
      body: await budgets.createOnetime(memberOf(request), body),
    }),
    updateOnetime: async ({ params, body, request }) => ({
      status: 200,
      body: await budgets.updateOnetime(memberOf(request), params.id, body),
    }),
    deleteOnetime: async ({ params, request }) => {
      await budgets.deleteOnetime(memberOf(request), params.id);
      return noContent;
    },
    getIncome: async ({ query, request }) => ({
      status: 200,
      body: await budgets.getIncome(memberOf(request), query.year, query.month),
    }),
    setIncome: async ({ body, request }) => ({ status: 200, body: await budgets.setIncome(memberOf(request), body) }),
  });
}
