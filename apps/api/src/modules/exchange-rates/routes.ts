import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../lib/contract-router.js';

/** Exchange rates (`/api/fx/rate`): cached per currency pair and day, 404 for an unknown currency, 503 when unavailable. */
export default async function exchangeRatesModule(app: FastifyInstance): Promise<void> {
  const { exchangeRates } = app.services;
  registerContractRouter(app, contract.ledger.fx, {
    rate: async ({ query }) => ({ status: 200, body: await exchangeRates.rateFor(query.from, query.to, query.date) }),
  });
}
