/** Statistics (premium). */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  errorResponses,
  LedgerTypeSchema,
  MoneySchema,
  MonthQuerySchema,
  MonthSchema,
  meta,
  NonNegativeMoneySchema,
  routerOptions,
  YearQuerySchema,
  YearSchema,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { text } from '../text.js';

const c = initContract();

const totals = {
  income: NonNegativeMoneySchema,
  expense: NonNegativeMoneySchema,
  balance: MoneySchema.describe('income − expense'),
};

export const CategoryTotalSchema = z.object({
  category: text().nullable().describe('null: entries without a category'),
  type: LedgerTypeSchema,
  amount: NonNegativeMoneySchema,
  count: z.number().int().min(0),
});
export type CategoryTotal = z.infer<typeof CategoryTotalSchema>;

export const MonthlyStatsQuerySchema = z.object({ year: YearQuerySchema, month: MonthQuerySchema });
export type MonthlyStatsQuery = z.infer<typeof MonthlyStatsQuerySchema>;
export const MonthlyStatsSchema = z.object({
  year: YearSchema,
  month: MonthSchema,
  ...totals,
  byCategory: z.array(CategoryTotalSchema).describe('Largest amount first; pending entries excluded'),
});
export type MonthlyStats = z.infer<typeof MonthlyStatsSchema>;

export const YearlyStatsQuerySchema = z.object({ year: YearQuerySchema });
export type YearlyStatsQuery = z.infer<typeof YearlyStatsQuerySchema>;
export const YearlyStatsSchema = z.object({
  year: YearSchema,
  ...totals,
  months: z
    .array(z.object({ month: MonthSchema, ...totals }))
    .length(12)
    .describe('January to December'),
});
export type YearlyStats = z.infer<typeof YearlyStatsSchema>;

export const statsContract = c.router(
  {
    monthly: {
      method: 'GET',
      path: '/api/account/stats/monthly',
      summary: 'Totals and per-category amounts of a month',
      query: MonthlyStatsQuerySchema,
      responses: { 200: MonthlyStatsSchema, ...errorResponses(400, 401, 403) },
      metadata: meta('premium'),
    },
    yearly: {
      method: 'GET',
      path: '/api/account/stats/yearly',
      summary: 'Totals of a year, per month',
      query: YearlyStatsQuerySchema,
      responses: { 200: YearlyStatsSchema, ...errorResponses(400, 401, 403) },
      metadata: meta('premium'),
    },
  },
  routerOptions,
);

/** Component names of statistics (see schema-names.ts). */
export const statsNamedSchemas: NamedSchemas = {
  CategoryTotal: CategoryTotalSchema,
  MonthlyStats: MonthlyStatsSchema,
  YearlyStats: YearlyStatsSchema,
};
