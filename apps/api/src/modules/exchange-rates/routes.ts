import { contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../lib/contract-router.js';
import { type FieldIssue, ValidationFailedError } from '../../lib/errors.js';

/**
 * The currency codes a rate can be asked for: ICU's ISO 4217 list, the ISO precious-metal codes ICU leaves
 * out, and the codes rate providers quote that ISO does not list (local pounds and dollars pegged to another
 * currency, offshore yuan). A code outside it is refused as input (400) before the provider is needed, so it
 * answers the same configured or not (decision FI4).
 */
const KNOWN_CURRENCIES: ReadonlySet<string> = new Set([
  ...Intl.supportedValuesOf('currency'),
  'XAG',
  'XAU',
  'XPD',
  'XPT',
  'CNH',
  'FOK',
  'GGP',
  'IMP',
  'JEP',
  'KID',
  'TVD',
]);

/** Exchange rates (`/api/fx/rate`): cached per currency pair and day, 404 for an unknown currency, 503 when unavailable. */
export default async function exchangeRatesModule(app: FastifyInstance): Promise<void> {
  const { exchangeRates } = app.services;
  registerContractRouter(app, contract.ledger.fx, {
    rate: async ({ query }) => {
      const issues: FieldIssue[] = (['from', 'to'] as const)
        .filter((field) => !KNOWN_CURRENCIES.has(query[field]))
        .map((field) => ({ path: `query.${field}`, message: 'not a currency code (ISO 4217)' }));
      if (issues.length > 0) throw new ValidationFailedError(issues);
      return { status: 200, body: await exchangeRates.rateFor(query.from, query.to, query.date) };
    },
  });
}
