/** Recurring transactions (login; FREE members may keep 2). */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  DateSchema,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  LedgerTypeSchema,
  listOf,
  meta,
  PositiveMoneySchema,
  problems,
  routerOptions,
  withCommonProblems,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { nonBlankText, text } from '../text.js';
import { CategoryRefSchema, MemoSchema, TEMPLATE_NAME_MAX } from './shared.js';

const c = initContract();

export const FREE_RECURRING_LIMIT = 2;

export const RecurringFrequencySchema = z.enum(['MONTHLY', 'WEEKLY', 'YEARLY']);
export type RecurringFrequency = z.infer<typeof RecurringFrequencySchema>;

export const RecurringFieldsSchema = z.object({
  name: nonBlankText().max(TEMPLATE_NAME_MAX),
  type: LedgerTypeSchema,
  amount: PositiveMoneySchema,
  category: CategoryRefSchema.nullable().optional(),
  accountId: IdSchema.nullable().optional(),
  memo: MemoSchema.nullable().optional(),
  frequency: RecurringFrequencySchema,
  dayOfMonth: z
    .number()
    .int()
    .min(1)
    .max(31)
    .nullable()
    .optional()
    .describe("MONTHLY and YEARLY; clamped to the last day of short months (default: the start date's day)"),
  dayOfWeek: z
    .number()
    .int()
    .min(1)
    .max(7)
    .nullable()
    .optional()
    .describe("WEEKLY; ISO 1 = Monday … 7 = Sunday (default: the start date's weekday)"),
  monthOfYear: z
    .number()
    .int()
    .min(1)
    .max(12)
    .nullable()
    .optional()
    .describe("YEARLY (default: the start date's month)"),
  startDate: DateSchema,
  endDate: DateSchema.nullable().optional().describe('Inclusive; null = no end'),
  active: z.boolean().optional().describe('Default true'),
});

type RecurringInput = Partial<z.infer<typeof RecurringFieldsSchema>>;
/**
 * The end cannot precede the start (when both are sent; the server checks the stored values too). Schedule
 * fields the frequency needs default from the start date, and the ones it does not use are stored as null.
 */
const checkSchedule = (v: RecurringInput, ctx: z.RefinementCtx): void => {
  if (v.startDate && v.endDate && v.endDate < v.startDate)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['endDate'], message: 'before startDate' });
};

export const CreateRecurringRequestSchema = RecurringFieldsSchema.superRefine(checkSchedule);
export type CreateRecurringRequest = z.infer<typeof CreateRecurringRequestSchema>;
export const UpdateRecurringRequestSchema = RecurringFieldsSchema.partial().superRefine(checkSchedule);
export type UpdateRecurringRequest = z.infer<typeof UpdateRecurringRequestSchema>;

export const RecurringSchema = z.object({
  id: IdSchema,
  name: text(),
  type: LedgerTypeSchema,
  amount: PositiveMoneySchema,
  category: text().nullable(),
  accountId: IdSchema.nullable(),
  memo: text().nullable(),
  frequency: RecurringFrequencySchema,
  dayOfMonth: z.number().int().nullable(),
  dayOfWeek: z.number().int().nullable(),
  monthOfYear: z.number().int().nullable(),
  startDate: DateSchema,
  endDate: DateSchema.nullable(),
  active: z.boolean(),
  lastRunOn: DateSchema.nullable().describe(
    'Occurrences up to this day are settled: posted, or skipped by a pause or a schedule change (null: none yet)',
  ),
  nextDate: DateSchema.nullable().describe(
    'Next occurrence to be posted, on or after today; null when none is left (ended or inactive)',
  ),
  createdAt: InstantSchema,
  updatedAt: InstantSchema,
});
export type Recurring = z.infer<typeof RecurringSchema>;
export const RecurringListSchema = listOf(RecurringSchema);
export type RecurringList = z.infer<typeof RecurringListSchema>;

export const recurringsContract = withCommonProblems(
  c.router(
    {
      list: {
        method: 'GET',
        path: '/api/account/recurrings',
        summary: 'Recurring transactions',
        responses: { 200: RecurringListSchema },
        metadata: meta('login'),
      },
      create: {
        method: 'POST',
        path: '/api/account/recurrings',
        summary: 'Create a recurring transaction (FREE members: 2 in total, then 400 RECURRING_LIMIT)',
        body: CreateRecurringRequestSchema,
        responses: { 201: RecurringSchema, ...problems('RECURRING_LIMIT', 'UNKNOWN_CATEGORY', 'NOT_FOUND') },
        metadata: meta('login'),
      },
      update: {
        method: 'PUT',
        path: '/api/account/recurrings/:id',
        summary: 'Change a recurring transaction (omitted fields are kept)',
        pathParams: IdParamSchema,
        body: UpdateRecurringRequestSchema,
        responses: { 200: RecurringSchema, ...problems('UNKNOWN_CATEGORY') },
        metadata: meta('login'),
      },
      delete: {
        method: 'DELETE',
        path: '/api/account/recurrings/:id',
        summary: 'Delete a recurring transaction (entries already generated stay)',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

/** Component names of recurring transactions (see schema-names.ts). */
export const recurringsNamedSchemas: NamedSchemas = {
  Recurring: RecurringSchema,
  RecurringList: RecurringListSchema,
  RecurringFrequency: RecurringFrequencySchema,
};
