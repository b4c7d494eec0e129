import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

/** Lookups of arbitrary codes bypass the cache and cost provider calls: per member and minute. */
export const QUOTE_LOOKUPS_PER_MINUTE = 30;

/** Investments (`/api/account/holdings`, `trades`, `portfolio`, `quotes`); premium (the contract's metadata). */
export default async function investmentsModule(app: FastifyInstance): Promise<void> {
  const { holdings, trades, quotes } = app.services;
  const memberOf = (request: Parameters<typeof sessionOf>[0]) => sessionOf(request).memberId;
  registerContractRouter(app, contract.ledger.investments, {
    listHoldings: async ({ request }) => ({ status: 200, body: { items: await holdings.list(memberOf(request)) } }),
    createHolding: async ({ body, request }) => ({ status: 201, body: await holdings.create(memberOf(request), body) }),
    getHolding: async ({ params, request }) => ({
      status: 200,
      body: await holdings.get(memberOf(request), params.id),
    }),
    updateHolding: async ({ params, body, request }) => ({
      status: 200,
      body: await holdings.update(memberOf(request), params.id, body),
    }),
    deleteHolding: async ({ params, request }) => {
      await holdings.delete(memberOf(request), params.id);
      return { status: 204, body: undefined };
    },
    listTrades: async ({ query, request }) => ({ status: 200, body: await trades.list(memberOf(request), query) }),
    createTrade: async ({ body, request }) => ({ status: 201, body: await trades.create(memberOf(request), body) }),
    updateTrade: async ({ params, body, request }) => ({
      status: 200,
      body: await trades.update(memberOf(request), params.id, body),
    }),
    deleteTrade: async ({ params, request }) => {
      await trades.delete(memberOf(request), params.id);
      return { status: 204, body: undefined };
    },
    portfolio: async ({ request }) => ({ status: 200, body: await holdings.portfolio(memberOf(request)) }),
    quote: {
      hooks: {
        onRequest: app.rateLimit({
          max: QUOTE_LOOKUPS_PER_MINUTE,
          timeWindow: '1 minute',
          keyGenerator: (request) => `quote:${request.session?.memberId ?? request.ip}`,
        }),
      },
      handler: async ({ params }) => ({ status: 200, body: await quotes.lookup(params.code) }),
    },
  });
}
