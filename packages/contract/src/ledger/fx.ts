/** Exchange rates (login). */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CurrencySchema,
  DateSchema,
  decimalString,
  meta,
  problems,
  routerOptions,
  withCommonProblems,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';

const c = initContract();

export const FxRateQuerySchema = z.object({
  from: CurrencySchema,
  to: CurrencySchema,
  date: DateSchema.optional().describe("A past day's rate (default: today in the server's calendar, APP_TIMEZONE)"),
});
export type FxRateQuery = z.infer<typeof FxRateQuerySchema>;
export const FxRateSchema = z.object({
  from: CurrencySchema,
  to: CurrencySchema,
  rate: decimalString(12, 12).describe('Units of `to` per one unit of `from`, numeric(24,12)'),
  date: DateSchema.describe('Day the rate is cached for'),
});
export type FxRate = z.infer<typeof FxRateSchema>;

export const fxContract = withCommonProblems(
  c.router(
    {
      rate: {
        method: 'GET',
        path: '/api/fx/rate',
        summary: 'Exchange rate between two currencies (cached per currency pair and day)',
        description:
          'Unknown currency (or no rate that day): 404 CURRENCY_NOT_FOUND. Provider not set up: 503 PROVIDER_NOT_CONFIGURED; ' +
          'down, slow or over quota: 503 PROVIDER_UNAVAILABLE (never a silent 1:1 rate). A future `date`: 400.',
        query: FxRateQuerySchema,
        responses: {
          200: FxRateSchema,
          ...problems('CURRENCY_NOT_FOUND', 'PROVIDER_NOT_CONFIGURED', 'PROVIDER_UNAVAILABLE'),
        },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

/** Component names of exchange rates (see schema-names.ts). */
export const fxNamedSchemas: NamedSchemas = {
  FxRate: FxRateSchema,
};
