/** Exchange rates (login). */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { CurrencySchema, DateSchema, errorResponses, meta, RateSchema, routerOptions } from '../common.js';
import type { NamedSchemas } from '../schema-names.js';

const c = initContract();

export const FxRateQuerySchema = z.object({ from: CurrencySchema, to: CurrencySchema });
export type FxRateQuery = z.infer<typeof FxRateQuerySchema>;
export const FxRateSchema = z.object({
  from: CurrencySchema,
  to: CurrencySchema,
  rate: RateSchema.describe('Units of `to` per one unit of `from`'),
  date: DateSchema.describe('Day the rate is cached for'),
});
export type FxRate = z.infer<typeof FxRateSchema>;

export const fxContract = c.router(
  {
    rate: {
      method: 'GET',
      path: '/api/fx/rate',
      summary: 'Exchange rate between two currencies (cached per currency and day)',
      query: FxRateQuerySchema,
      responses: { 200: FxRateSchema, ...errorResponses(400, 401, 404) },
      metadata: meta('login'),
    },
  },
  routerOptions,
);

/** Component names of exchange rates (see schema-names.ts). */
export const fxNamedSchemas: NamedSchemas = {
  FxRate: FxRateSchema,
};
