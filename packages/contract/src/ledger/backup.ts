/** Backup export and restore (premium). Records reference each other by name. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CategoryNameSchema,
  CategoryTypeSchema,
  errorResponses,
  InstantSchema,
  LedgerTypeSchema,
  MoneySchema,
  meta,
  NonNegativeMoneySchema,
  routerOptions,
  SortOrderSchema,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { text } from '../text.js';
import { EntryFieldsSchema } from './entries.js';
import { RecurringFieldsSchema } from './recurrings.js';
import { CategoryRefSchema, MemoSchema, TagNameSchema, TEMPLATE_NAME_MAX } from './shared.js';
import { WalletFieldsSchema } from './wallets.js';

const c = initContract();

export const BACKUP_VERSION = 1;
export const BACKUP_ENTRIES_MAX = 200_000;
export const BACKUP_LIST_MAX = 5_000;

/** A wallet name that an entry, recurring or quick entry refers to. */
const WalletRefSchema = text().trim().min(1).max(30).nullable().optional().describe('Wallet name');

export const BackupAccountSchema = WalletFieldsSchema.extend({
  balance: MoneySchema.default(0),
  sortOrder: SortOrderSchema.optional(),
});
export const BackupTagSchema = z.object({ name: TagNameSchema, sortOrder: SortOrderSchema.optional() });
export const BackupCategorySchema = z.object({
  name: CategoryNameSchema,
  type: CategoryTypeSchema,
  parent: CategoryNameSchema.nullable().optional().describe('Name of the top-level parent of the same type'),
  sortOrder: SortOrderSchema.optional(),
});
export const BackupEntrySchema = EntryFieldsSchema.omit({ accountId: true }).extend({
  account: WalletRefSchema,
  pending: z.boolean().optional(),
});
export const BackupRecurringSchema = RecurringFieldsSchema.omit({ accountId: true }).extend({
  account: WalletRefSchema,
});
export const BackupBudgetSchema = z.object({
  category: CategoryRefSchema,
  amount: NonNegativeMoneySchema,
});
export const BackupQuickEntrySchema = z.object({
  name: text().trim().min(1).max(TEMPLATE_NAME_MAX),
  type: LedgerTypeSchema.default('EXPENSE'),
  amount: NonNegativeMoneySchema.nullable().optional(),
  category: CategoryRefSchema.nullable().optional(),
  account: WalletRefSchema,
  memo: MemoSchema.nullable().optional(),
  sortOrder: SortOrderSchema.optional(),
});

const list = <T extends z.ZodTypeAny>(item: T, max = BACKUP_LIST_MAX) => z.array(item).max(max).default([]);

export const BackupObjectSchema = z.object({
  version: z.literal(BACKUP_VERSION).default(BACKUP_VERSION),
  exportedAt: InstantSchema.optional(),
  accounts: list(BackupAccountSchema),
  tags: list(BackupTagSchema),
  categories: list(BackupCategorySchema),
  entries: list(BackupEntrySchema, BACKUP_ENTRIES_MAX),
  recurrings: list(BackupRecurringSchema),
  budgets: list(BackupBudgetSchema).describe('Placed in the current month on restore'),
  quickEntries: list(BackupQuickEntrySchema),
});

/** The restore body: refused when every list is empty. */
export const BackupSchema = BackupObjectSchema.refine(
  (b) =>
    b.accounts.length +
      b.tags.length +
      b.categories.length +
      b.entries.length +
      b.recurrings.length +
      b.budgets.length +
      b.quickEntries.length >
    0,
  { message: 'the backup holds no data' },
);
export type Backup = z.infer<typeof BackupSchema>;
export type BackupInput = z.input<typeof BackupSchema>;

export const RestoreResultSchema = z.object({
  accounts: z.number().int().min(0),
  tags: z.number().int().min(0),
  categories: z.number().int().min(0),
  entries: z.number().int().min(0),
  recurrings: z.number().int().min(0),
  budgets: z.number().int().min(0),
  quickEntries: z.number().int().min(0),
});
export type RestoreResult = z.infer<typeof RestoreResultSchema>;

export const backupContract = c.router(
  {
    export: {
      method: 'GET',
      path: '/api/account/backup',
      summary: 'Export the ledger as a backup (the body restore takes)',
      responses: { 200: BackupObjectSchema, ...errorResponses(401, 403) },
      metadata: meta('premium'),
    },
    restore: {
      method: 'POST',
      path: '/api/account/restore',
      summary: 'Replace all ledger data with a backup (one transaction; investments are deleted)',
      body: BackupSchema,
      responses: { 200: RestoreResultSchema, ...errorResponses(400, 401, 403, 413, 415) },
      metadata: meta('premium'),
    },
  },
  routerOptions,
);

/** Component names of backup and restore (see schema-names.ts). */
export const backupNamedSchemas: NamedSchemas = {
  Backup: BackupObjectSchema,
  RestoreResult: RestoreResultSchema,
};
