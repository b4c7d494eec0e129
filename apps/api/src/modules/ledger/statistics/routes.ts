import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';

/** Statistics (`/api/account/stats/…`); premium (contract metadata). */
export default async function statisticsModule(app: FastifyInstance): Promise<void> {
  const { statistics } = app.services;
  const memberOf = (request: Parameters<typeof sessionOf>[0]) => sessionOf(request).memberId;
  registerContractRouter(app, contract.ledger.stats, {
    monthly: async ({ query, request }) => ({
      status: 200,
      body: await statistics.monthly(memberOf(request), query.year, query.month),
    }),
    yearly: async ({ query, request }) => ({
      status: 200,
      body: await statistics.yearly(memberOf(request), query.year),
    }),
    trend: async ({ query, request }) => ({
      status: 200,
      body: await statistics.trend(memberOf(request), query.months),
    }),
    merchants: async ({ query, request }) => ({
      status: 200,
      body: await statistics.topMerchants(memberOf(request), query),
    }),
  });
}
