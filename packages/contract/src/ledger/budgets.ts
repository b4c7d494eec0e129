/** Monthly budgets, one-time budgets and expected monthly income (premium). */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  DateSchema,
  IdParamSchema,
  IdSchema,
  listOf,
  MonthQuerySchema,
  MonthSchema,
  meta,
  NonNegativeMoneySchema,
  problems,
  routerOptions,
  withCommonProblems,
  YearQuerySchema,
  YearSchema,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { nonBlankText, text } from '../text.js';
import { CategoryRefSchema, DateRangeQuerySchema, MemoSchema } from './shared.js';

const c = initContract();

export const YearMonthQuerySchema = z.object({ year: YearQuerySchema, month: MonthQuerySchema });
export type YearMonthQuery = z.infer<typeof YearMonthQuerySchema>;

// ---------------------------------------------------------------------------
// Monthly budgets
// ---------------------------------------------------------------------------

export const CreateBudgetRequestSchema = z.object({
  category: CategoryRefSchema.describe('Expense category name'),
  year: YearSchema,
  month: MonthSchema,
  amount: NonNegativeMoneySchema,
});
export type CreateBudgetRequest = z.infer<typeof CreateBudgetRequestSchema>;
export const UpdateBudgetRequestSchema = CreateBudgetRequestSchema.pick({ category: true, amount: true }).partial();
export type UpdateBudgetRequest = z.infer<typeof UpdateBudgetRequestSchema>;

export const BudgetSchema = z.object({
  id: IdSchema,
  category: text(),
  year: YearSchema,
  month: MonthSchema,
  amount: NonNegativeMoneySchema,
  spent: NonNegativeMoneySchema.describe(
    'Confirmed expenses of the month in the category and, for a top-level category, its sub-categories',
  ),
});
export type Budget = z.infer<typeof BudgetSchema>;

export const MonthBudgetsSchema = z.object({
  year: YearSchema,
  month: MonthSchema,
  items: z.array(BudgetSchema).describe('By category name'),
  totalBudget: NonNegativeMoneySchema.describe('Sum of the budget amounts'),
  totalSpent: NonNegativeMoneySchema.describe('All confirmed expenses of the month, budgeted or not'),
  expectedIncome: NonNegativeMoneySchema.nullable(),
});
export type MonthBudgets = z.infer<typeof MonthBudgetsSchema>;

export const CopyBudgetsRequestSchema = z
  .object({ fromYear: YearSchema, fromMonth: MonthSchema, toYear: YearSchema, toMonth: MonthSchema })
  .refine((v) => v.fromYear !== v.toYear || v.fromMonth !== v.toMonth, {
    message: 'source and target month must differ',
    path: ['toMonth'],
  });
export type CopyBudgetsRequest = z.infer<typeof CopyBudgetsRequestSchema>;
export const CopyBudgetsResultSchema = z.object({ copied: z.number().int().min(0) });
export type CopyBudgetsResult = z.infer<typeof CopyBudgetsResultSchema>;

// ---------------------------------------------------------------------------
// One-time budgets
// ---------------------------------------------------------------------------

export const OnetimeBudgetFieldsSchema = z.object({
  name: nonBlankText().max(50),
  amount: NonNegativeMoneySchema,
  startDate: DateSchema,
  endDate: DateSchema.describe('Inclusive; not before startDate'),
  category: CategoryRefSchema.nullable().optional().describe('Count only this category; null: every expense'),
  memo: MemoSchema.nullable().optional(),
});
const checkDates = (v: { startDate?: string; endDate?: string }, ctx: z.RefinementCtx) => {
  if (v.startDate && v.endDate && v.endDate < v.startDate)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['endDate'], message: 'before startDate' });
};
export const CreateOnetimeBudgetRequestSchema = OnetimeBudgetFieldsSchema.superRefine(checkDates);
export type CreateOnetimeBudgetRequest = z.infer<typeof CreateOnetimeBudgetRequestSchema>;
export const UpdateOnetimeBudgetRequestSchema = OnetimeBudgetFieldsSchema.partial().superRefine(checkDates);
export type UpdateOnetimeBudgetRequest = z.infer<typeof UpdateOnetimeBudgetRequestSchema>;

export const OnetimeBudgetSchema = z.object({
  id: IdSchema,
  name: text(),
  amount: NonNegativeMoneySchema,
  startDate: DateSchema,
  endDate: DateSchema,
  category: text().nullable(),
  memo: text().nullable(),
  spent: NonNegativeMoneySchema.describe(
    'Confirmed expenses in the date range: of the category (with its sub-categories) when set, else all',
  ),
});
export type OnetimeBudget = z.infer<typeof OnetimeBudgetSchema>;
export const OnetimeBudgetListSchema = listOf(OnetimeBudgetSchema);
export type OnetimeBudgetList = z.infer<typeof OnetimeBudgetListSchema>;
export const OnetimeBudgetListQuerySchema = DateRangeQuerySchema.describe('Budgets overlapping the range');

// ---------------------------------------------------------------------------
// Expected income
// ---------------------------------------------------------------------------

export const BudgetIncomeSchema = z.object({
  year: YearSchema,
  month: MonthSchema,
  amount: NonNegativeMoneySchema.nullable().describe('null when not set'),
});
export type BudgetIncome = z.infer<typeof BudgetIncomeSchema>;
export const SetBudgetIncomeRequestSchema = z.object({
  year: YearSchema,
  month: MonthSchema,
  amount: NonNegativeMoneySchema.nullable().describe('null removes the value'),
});
export type SetBudgetIncomeRequest = z.infer<typeof SetBudgetIncomeRequestSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const budgetsContract = withCommonProblems(
  c.router(
    {
      list: {
        method: 'GET',
        path: '/api/account/budgets',
        summary: 'Budgets of a month with what was spent',
        query: YearMonthQuerySchema,
        responses: { 200: MonthBudgetsSchema },
        metadata: meta('premium'),
      },
      create: {
        method: 'POST',
        path: '/api/account/budgets',
        summary: 'Create the budget of a category for a month (one per category and month)',
        body: CreateBudgetRequestSchema,
        responses: { 201: BudgetSchema, ...problems('UNKNOWN_CATEGORY', 'DUPLICATE_BUDGET', 'AMOUNT_OUT_OF_RANGE') },
        metadata: meta('premium'),
      },
      update: {
        method: 'PUT',
        path: '/api/account/budgets/:id',
        summary: 'Change a budget',
        pathParams: IdParamSchema,
        body: UpdateBudgetRequestSchema,
        responses: { 200: BudgetSchema, ...problems('UNKNOWN_CATEGORY', 'DUPLICATE_BUDGET', 'AMOUNT_OUT_OF_RANGE') },
        metadata: meta('premium'),
      },
      delete: {
        method: 'DELETE',
        path: '/api/account/budgets/:id',
        summary: 'Delete a budget',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('premium'),
      },
      copy: {
        method: 'POST',
        path: '/api/account/budgets/copy',
        summary: 'Copy the budgets of a month to another month (same category is overwritten)',
        body: CopyBudgetsRequestSchema,
        responses: { 200: CopyBudgetsResultSchema, ...problems('AMOUNT_OUT_OF_RANGE') },
        metadata: meta('premium'),
      },
      listOnetime: {
        method: 'GET',
        path: '/api/account/budgets/onetime',
        summary: 'One-time budgets (newest start first), optionally overlapping a date range',
        query: OnetimeBudgetListQuerySchema,
        responses: { 200: OnetimeBudgetListSchema },
        metadata: meta('premium'),
      },
      createOnetime: {
        method: 'POST',
        path: '/api/account/budgets/onetime',
        summary: 'Create a one-time budget',
        body: CreateOnetimeBudgetRequestSchema,
        responses: { 201: OnetimeBudgetSchema, ...problems('UNKNOWN_CATEGORY', 'AMOUNT_OUT_OF_RANGE') },
        metadata: meta('premium'),
      },
      updateOnetime: {
        method: 'PUT',
        path: '/api/account/budgets/onetime/:id',
        summary: 'Change a one-time budget',
        pathParams: IdParamSchema,
        body: UpdateOnetimeBudgetRequestSchema,
        responses: { 200: OnetimeBudgetSchema, ...problems('UNKNOWN_CATEGORY', 'AMOUNT_OUT_OF_RANGE') },
        metadata: meta('premium'),
      },
      deleteOnetime: {
        method: 'DELETE',
        path: '/api/account/budgets/onetime/:id',
        summary: 'Delete a one-time budget',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('premium'),
      },
      getIncome: {
        method: 'GET',
        path: '/api/account/budgets/income',
        summary: 'Expected income of a month',
        query: YearMonthQuerySchema,
        responses: { 200: BudgetIncomeSchema },
        metadata: meta('premium'),
      },
      setIncome: {
        method: 'PUT',
        path: '/api/account/budgets/income',
        summary: 'Set (or with null remove) the expected income of a month',
        body: SetBudgetIncomeRequestSchema,
        responses: { 200: BudgetIncomeSchema, ...problems('AMOUNT_OUT_OF_RANGE') },
        metadata: meta('premium'),
      },
    },
    routerOptions,
  ),
);

/** Component names of budgets (see schema-names.ts). */
export const budgetsNamedSchemas: NamedSchemas = {
  Budget: BudgetSchema,
  MonthBudgets: MonthBudgetsSchema,
  CopyBudgetsResult: CopyBudgetsResultSchema,
  OnetimeBudget: OnetimeBudgetSchema,
  OnetimeBudgetList: OnetimeBudgetListSchema,
  BudgetIncome: BudgetIncomeSchema,
};
