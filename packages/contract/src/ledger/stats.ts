/** Statistics (premium). */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  coercedInteger,
  DateSchema,
  LedgerTypeSchema,
  MoneySchema,
  MonthQuerySchema,
  MonthSchema,
  meta,
  NonNegativeMoneySchema,
  routerOptions,
  withCommonProblems,
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
  category: text().nullable().describe('The category name the entries carry; null: entries without a category'),
  parentCategory: text()
    .nullable()
    .describe('The top-level category of a sub-category; null for a top-level category or an unknown name'),
  type: LedgerTypeSchema,
  amount: NonNegativeMoneySchema,
  count: z.number().int().min(0),
});
export type CategoryTotal = z.infer<typeof CategoryTotalSchema>;

export const TopCategoryTotalSchema = z.object({
  category: text().nullable().describe('A top-level category (its sub-categories included); null: no category'),
  type: LedgerTypeSchema,
  amount: NonNegativeMoneySchema,
  count: z.number().int().min(0),
});
export type TopCategoryTotal = z.infer<typeof TopCategoryTotalSchema>;

const byCategory = {
  byCategory: z.array(CategoryTotalSchema).describe('Per category as entered; largest amount first'),
  byTopCategory: z
    .array(TopCategoryTotalSchema)
    .describe('Sub-categories rolled up into their top-level category; largest amount first'),
};

export const MonthlyStatsQuerySchema = z.object({ year: YearQuerySchema, month: MonthQuerySchema });
export type MonthlyStatsQuery = z.infer<typeof MonthlyStatsQuerySchema>;
export const MonthlyStatsSchema = z.object({
  year: YearSchema,
  month: MonthSchema,
  ...totals,
  ...byCategory,
});
export type MonthlyStats = z.infer<typeof MonthlyStatsSchema>;

export const MonthTotalsSchema = z.object({ month: MonthSchema, ...totals });
export type MonthTotals = z.infer<typeof MonthTotalsSchema>;

export const YearlyStatsQuerySchema = z.object({ year: YearQuerySchema });
export type YearlyStatsQuery = z.infer<typeof YearlyStatsQuerySchema>;
export const YearlyStatsSchema = z.object({
  year: YearSchema,
  ...totals,
  months: z.array(MonthTotalsSchema).length(12).describe('January to December'),
  ...byCategory,
});
export type YearlyStats = z.infer<typeof YearlyStatsSchema>;

export const TREND_MONTHS_DEFAULT = 12;
export const TREND_MONTHS_MAX = 36;

export const StatsTrendQuerySchema = z.object({
  months: coercedInteger(1, TREND_MONTHS_MAX)
    .default(TREND_MONTHS_DEFAULT)
    .describe('How many months, ending with the current one'),
});
export type StatsTrendQuery = z.infer<typeof StatsTrendQuerySchema>;
export const TrendMonthSchema = z.object({ year: YearSchema, month: MonthSchema, ...totals });
export type TrendMonth = z.infer<typeof TrendMonthSchema>;
export const StatsTrendSchema = z.object({
  months: z
    .array(TrendMonthSchema)
    .describe('Oldest first, ending with the current month (service time zone); months without entries are zeros'),
});
export type StatsTrend = z.infer<typeof StatsTrendSchema>;

export const MERCHANTS_LIMIT_DEFAULT = 10;
export const MERCHANTS_LIMIT_MAX = 100;

export const TopMerchantsQuerySchema = z
  .object({
    from: DateSchema.optional().describe('Inclusive; default: the first day of the month of `to`'),
    to: DateSchema.optional().describe('Inclusive; default: today (service time zone)'),
    type: LedgerTypeSchema.default('EXPENSE'),
    limit: coercedInteger(1, MERCHANTS_LIMIT_MAX).default(MERCHANTS_LIMIT_DEFAULT),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from is after to', path: ['from'] });
export type TopMerchantsQuery = z.infer<typeof TopMerchantsQuerySchema>;
export const MerchantTotalSchema = z.object({
  merchant: text().describe('The memo as most often written (trimmed, inner spaces collapsed)'),
  amount: NonNegativeMoneySchema,
  count: z.number().int().min(1),
});
export type MerchantTotal = z.infer<typeof MerchantTotalSchema>;
export const TopMerchantsSchema = z.object({
  from: DateSchema,
  to: DateSchema,
  type: LedgerTypeSchema,
  items: z
    .array(MerchantTotalSchema)
    .describe(
      'Largest amount first; memos equal up to case and spacing are one merchant; entries without a memo are left out',
    ),
});
export type TopMerchants = z.infer<typeof TopMerchantsSchema>;

export const statsContract = withCommonProblems(
  c.router(
    {
      monthly: {
        method: 'GET',
        path: '/api/account/stats/monthly',
        summary: 'Totals and per-category amounts of a month (confirmed entries; pending ones count nowhere)',
        query: MonthlyStatsQuerySchema,
        responses: { 200: MonthlyStatsSchema },
        metadata: meta('premium'),
      },
      yearly: {
        method: 'GET',
        path: '/api/account/stats/yearly',
        summary: 'Totals of a year, per month and per category (confirmed entries)',
        query: YearlyStatsQuerySchema,
        responses: { 200: YearlyStatsSchema },
        metadata: meta('premium'),
      },
      trend: {
        method: 'GET',
        path: '/api/account/stats/trend',
        summary: 'Income and expense per month over the last months (confirmed entries)',
        query: StatsTrendQuerySchema,
        responses: { 200: StatsTrendSchema },
        metadata: meta('premium'),
      },
      merchants: {
        method: 'GET',
        path: '/api/account/stats/merchants',
        summary: 'Top merchants (entry memos) of a date range by amount (confirmed entries)',
        query: TopMerchantsQuerySchema,
        responses: { 200: TopMerchantsSchema },
        metadata: meta('premium'),
      },
    },
    routerOptions,
  ),
);

/** Component names of statistics (see schema-names.ts). */
export const statsNamedSchemas: NamedSchemas = {
  CategoryTotal: CategoryTotalSchema,
  TopCategoryTotal: TopCategoryTotalSchema,
  MonthlyStats: MonthlyStatsSchema,
  MonthTotals: MonthTotalsSchema,
  YearlyStats: YearlyStatsSchema,
  TrendMonth: TrendMonthSchema,
  StatsTrend: StatsTrendSchema,
  MerchantTotal: MerchantTotalSchema,
  TopMerchants: TopMerchantsSchema,
};
