import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';

/** Exchange rates (`/api/fx/rate`): cached per currency pair and day, 404 for an unknown currency, 503 when unavailable. */
export default async function exchangeRatesModule(app: FastifyInstance): Promise<void> {
  const { exchangeRates } = app.services;
  registerContractRouter(app, contract.ledger.fx, {
    // A code outside the contract's list is refused as input (400) before the provider is needed, so it answers
    // the same configured or not (decision FI4).
    rate: async ({ query }) => {
      return { status: 200, body: await exchangeRates.rateFor(query.from, query.to, query.date) };
    },
  });
}
