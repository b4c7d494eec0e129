/** Delta sync of the ledger: what changed since a cursor, deletions included. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  coercedInteger,
  IdSchema,
  MonthSchema,
  meta,
  NonNegativeMoneySchema,
  problems,
  routerOptions,
  withCommonProblems,
  YearSchema,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { text } from '../text.js';
import { BudgetSchema, OnetimeBudgetSchema } from './budgets.js';
import { CategorySchema, TagSchema } from './categories.js';
import { EntrySchema, QuickEntrySchema } from './entries.js';
import { RecurringSchema } from './recurrings.js';
import { WalletSchema } from './wallets.js';

const c = initContract();

export const SYNC_BATCH_DEFAULT = 500;
export const SYNC_BATCH_MAX = 2000;

/** The kinds of ledger records a sync carries. */
export const SyncEntitySchema = z.enum([
  'entry',
  'wallet',
  'category',
  'tag',
  'recurring',
  'quick_entry',
  'budget',
  'budget_onetime',
  'budget_income',
]);
export type SyncEntity = z.infer<typeof SyncEntitySchema>;

/** An opaque position in the member's change sequence. */
export const SyncCursorSchema = text().regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected a cursor from a previous sync');

export const ChangesQuerySchema = z.object({
  since: SyncCursorSchema.optional().describe('The `cursor` of the previous sync; omit for everything'),
  limit: coercedInteger(1, SYNC_BATCH_MAX)
    .default(SYNC_BATCH_DEFAULT)
    .describe('Most records (changed or deleted) in one answer'),
});
export type ChangesQuery = z.infer<typeof ChangesQuerySchema>;

/** Budget records as stored (the `spent` of the budget screens is computed there, not synced). */
export const BudgetRecordSchema = BudgetSchema.omit({ spent: true });
export const OnetimeBudgetRecordSchema = OnetimeBudgetSchema.omit({ spent: true });
export const BudgetIncomeRecordSchema = z.object({
  id: IdSchema,
  year: YearSchema,
  month: MonthSchema,
  amount: NonNegativeMoneySchema,
});
export type BudgetRecord = z.infer<typeof BudgetRecordSchema>;
export type OnetimeBudgetRecord = z.infer<typeof OnetimeBudgetRecordSchema>;
export type BudgetIncomeRecord = z.infer<typeof BudgetIncomeRecordSchema>;

export const ChangesSchema = z.object({
  cursor: SyncCursorSchema.describe('Pass as `since` next time'),
  hasMore: z.boolean().describe('More changes are waiting: sync again at once with the new cursor'),
  changed: z.object({
    entries: z.array(EntrySchema),
    wallets: z.array(WalletSchema),
    categories: z.array(CategorySchema),
    tags: z.array(TagSchema),
    recurrings: z.array(RecurringSchema),
    quickEntries: z.array(QuickEntrySchema),
    budgets: z.array(BudgetRecordSchema),
    onetimeBudgets: z.array(OnetimeBudgetRecordSchema),
    budgetIncomes: z.array(BudgetIncomeRecordSchema),
  }),
  deleted: z.array(z.object({ entity: SyncEntitySchema, id: IdSchema })).describe('Records deleted since the cursor'),
});
export type Changes = z.infer<typeof ChangesSchema>;

export const changesContract = withCommonProblems(
  c.router(
    {
      list: {
        method: 'GET',
        path: '/api/account/changes',
        summary: "What changed in the caller's ledger since a cursor, deletions included",
        description:
          'Changes come in the order they were committed, each record at most once with its latest state; a record changed and then deleted comes as a deletion. Answers `RESYNC_REQUIRED` (409) when the cursor is older than the changes kept.',
        query: ChangesQuerySchema,
        responses: { 200: ChangesSchema, ...problems('CURSOR_INVALID', 'RESYNC_REQUIRED') },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

/** Component names of the sync (see schema-names.ts). */
export const changesNamedSchemas: NamedSchemas = {
  Changes: ChangesSchema,
  SyncEntity: SyncEntitySchema,
  BudgetRecord: BudgetRecordSchema,
  OnetimeBudgetRecord: OnetimeBudgetRecordSchema,
  BudgetIncomeRecord: BudgetIncomeRecordSchema,
};
