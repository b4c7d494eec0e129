/** Backup export and restore (premium). Records reference each other by name. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CategoryNameSchema,
  CategoryTypeSchema,
  DateSchema,
  InstantSchema,
  LedgerTypeSchema,
  MoneySchema,
  meta,
  NonNegativeMoneySchema,
  problems,
  routerOptions,
  SortOrderSchema,
  strictInput,
  withCommonProblems,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { nonBlankText } from '../text.js';
import { CreateOnetimeBudgetRequestSchema } from './budgets.js';
import { EntryFieldsSchema } from './entries.js';
import { ImportCountsSchema, StatementFormatSchema } from './imports.js';
import { RecurringFieldsSchema } from './recurrings.js';
import { CategoryRefSchema, MemoSchema, TagNameSchema, TEMPLATE_NAME_MAX } from './shared.js';
import { WalletFieldsSchema } from './wallets.js';

const c = initContract();

export const BACKUP_VERSION = 1;
export const BACKUP_ENTRIES_MAX = 200_000;
export const BACKUP_LIST_MAX = 5_000;

/** A wallet name that an entry, recurring or quick entry refers to. */
const WalletRefSchema = nonBlankText().max(30).nullable().optional().describe('Wallet name');

export const BackupAccountSchema = WalletFieldsSchema.extend({
  balance: MoneySchema.default(0).describe(
    'The balance at export. Restore: ignored when openingBalance is given (the balance is then the opening balance plus the confirmed entries); without openingBalance, the opening balance is set so that the wallet ends at this balance',
  ),
  sortOrder: SortOrderSchema.optional().describe('Default: the position in the list'),
});
export const BackupTagSchema = z.object({ name: TagNameSchema, sortOrder: SortOrderSchema.optional() });
export const BackupCategorySchema = z.object({
  name: CategoryNameSchema,
  type: CategoryTypeSchema,
  parent: CategoryNameSchema.nullable().optional().describe('Name of the top-level parent of the same type'),
  sortOrder: SortOrderSchema.optional().describe('Default: the position among its siblings in the list'),
});

type ForeignFields = { currency?: string | null; originalAmount?: string | null; exchangeRate?: string | null };
/** The foreign triple comes whole or not at all; instalments are for expenses (as the entries' CHECKs say). */
const checkBackupEntry = (
  v: ForeignFields & { type: string; installmentMonths?: number | null },
  ctx: z.RefinementCtx,
): void => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, path: [path], message });
  const foreign = [v.currency, v.originalAmount, v.exchangeRate].filter((value) => value != null).length;
  if (foreign === 1 || foreign === 2) issue('currency', 'currency, originalAmount and exchangeRate come together');
  if (v.installmentMonths != null && v.type !== 'EXPENSE') issue('installmentMonths', 'only for expenses');
};

/** An entry; tags and the wallet by name. Empty optional fields may be left out (the export leaves them out). */
export const BackupEntrySchema = EntryFieldsSchema.omit({ accountId: true })
  .extend({
    account: WalletRefSchema,
    pending: z.boolean().optional().describe('Unconfirmed (from a card notification); default false'),
    notifKey: nonBlankText()
      .max(200)
      .nullable()
      .optional()
      .describe('De-duplication key of the card notification that created it'),
    importKey: nonBlankText()
      .max(100)
      .nullable()
      .optional()
      .describe('Key of the statement row that created or confirmed it (a later import of that row is a duplicate)'),
  })
  .superRefine(checkBackupEntry);
export const BackupRecurringSchema = RecurringFieldsSchema.omit({ accountId: true })
  .extend({
    account: WalletRefSchema,
    lastRunOn: DateSchema.nullable()
      .optional()
      .describe(
        'Occurrences up to this day are settled (their entries are in the backup). Absent: settled up to yesterday, so a restore never posts past occurrences again',
      ),
  })
  .refine((v) => v.endDate == null || v.endDate >= v.startDate, { message: 'before startDate', path: ['endDate'] });
export const BackupBudgetSchema = z.object({
  category: CategoryRefSchema,
  amount: NonNegativeMoneySchema,
});
export const BackupQuickEntrySchema = z.object({
  name: nonBlankText().max(TEMPLATE_NAME_MAX),
  type: LedgerTypeSchema.default('EXPENSE'),
  amount: NonNegativeMoneySchema.nullable().optional(),
  category: CategoryRefSchema.nullable().optional(),
  account: WalletRefSchema,
  memo: MemoSchema.nullable().optional(),
  sortOrder: SortOrderSchema.optional().describe('Default: the position in the list'),
});

/** A committed statement import, as history (decision SI1): what was imported, not its rows. */
export const BackupImportSchema = z.object({
  fileName: nonBlankText().max(255),
  fileHash: nonBlankText().max(64),
  format: StatementFormatSchema,
  status: z.enum(['COMMITTED', 'UNDONE']),
  committedAt: InstantSchema,
  counts: ImportCountsSchema,
});

const list = <T extends z.ZodTypeAny>(item: T, max = BACKUP_LIST_MAX) => z.array(item).max(max).default([]);

export const BackupObjectSchema = z.object({
  version: z.literal(BACKUP_VERSION).default(BACKUP_VERSION),
  exportedAt: InstantSchema.optional(),
  accounts: list(BackupAccountSchema).describe('Wallets, unique by name'),
  tags: list(BackupTagSchema).describe('Unique by name'),
  categories: list(BackupCategorySchema).describe('Unique by type and name across both levels'),
  entries: list(BackupEntrySchema, BACKUP_ENTRIES_MAX).describe(
    'Oldest first. A category is a name (it need not be in `categories`: a deleted category keeps its uses); a wallet and tags must be in the backup',
  ),
  recurrings: list(BackupRecurringSchema),
  budgets: list(BackupBudgetSchema).describe("The current month's budgets; placed in the current month on restore"),
  onetimeBudgets: list(CreateOnetimeBudgetRequestSchema).describe('One-time budgets with their own dates'),
  expectedIncome: NonNegativeMoneySchema.nullable()
    .optional()
    .describe("The current month's expected income; placed in the current month on restore"),
  quickEntries: list(BackupQuickEntrySchema),
  imports: list(BackupImportSchema).describe(
    'Committed statement imports, as history: exported, not restored (the entries keep their import keys)',
  ),
});

const hasData = (b: z.infer<typeof BackupObjectSchema>): boolean =>
  b.accounts.length +
    b.tags.length +
    b.categories.length +
    b.entries.length +
    b.recurrings.length +
    b.budgets.length +
    b.onetimeBudgets.length +
    b.quickEntries.length >
    0 || b.expectedIncome != null;

/** The restore body: refused when it holds no data (400 `EMPTY_BACKUP`). */
export const BackupSchema = BackupObjectSchema.refine(hasData, { message: 'the backup holds no data' });
export type Backup = z.infer<typeof BackupSchema>;
export type BackupInput = z.input<typeof BackupSchema>;
/** Whether a parsed backup holds anything to restore. */
export const backupHasData: (backup: Backup) => boolean = hasData;

export const RestoreResultSchema = z.object({
  accounts: z.number().int().min(0),
  tags: z.number().int().min(0),
  categories: z.number().int().min(0),
  entries: z.number().int().min(0),
  recurrings: z.number().int().min(0),
  budgets: z.number().int().min(0),
  onetimeBudgets: z.number().int().min(0),
  expectedIncome: z.boolean().describe("Whether the current month's expected income was set"),
  quickEntries: z.number().int().min(0),
});
export type RestoreResult = z.infer<typeof RestoreResultSchema>;

export const backupContract = withCommonProblems(
  c.router(
    {
      export: {
        method: 'GET',
        path: '/api/account/backup',
        summary: 'Export the ledger as a backup (the body restore takes)',
        description:
          "Streamed as it is read (chunked, one consistent snapshot of the ledger) with `Content-Disposition: attachment`. Account numbers are exported decrypted: the backup is the member's own copy. Budgets and the expected income are the current month's.",
        responses: { 200: BackupObjectSchema },
        metadata: meta('premium'),
      },
      restore: {
        method: 'POST',
        path: '/api/account/restore',
        summary: 'Replace all ledger data with a backup (one transaction; investments are deleted)',
        description:
          "Deletes every ledger record of the caller (entries, wallets, categories, tags, recurrings, budgets of every month, one-time budgets, expected incomes, quick entries, investment holdings and trades) and recreates the backup's by name, in the order wallets, tags, categories (top level, then sub-categories), entries, recurrings, budgets, quick entries, in one transaction: any failure leaves the old data as it was. Budgets and the expected income are placed in the current month. FREE-tier limits do not apply. A backup with no data is 400 `EMPTY_BACKUP`; one that names a wallet, tag or parent category it does not hold, or holds a name twice, is 400 `INVALID_BACKUP` (`errors` names the places); one whose amounts add up past 9007199254740991 is 400 `AMOUNT_OUT_OF_RANGE`. The body may be far larger than other requests' (`RESTORE_MAX_BYTES`, 64 MB by default; beyond: 413).",
        body: BackupSchema,
        responses: { 200: RestoreResultSchema, ...problems('EMPTY_BACKUP', 'INVALID_BACKUP', 'AMOUNT_OUT_OF_RANGE') },
        metadata: meta('premium'),
      },
    },
    routerOptions,
  ),
);

/** Component names of backup and restore (see schema-names.ts). */
export const backupNamedSchemas: NamedSchemas = {
  // The export is an answer, open to fields added later; the restore body is closed (C46): one component each.
  Backup: BackupObjectSchema,
  RestoreRequest: strictInput(BackupObjectSchema),
  RestoreResult: RestoreResultSchema,
  // Shared with the restore body's one-time budgets: one component instead of the same object written twice.
  CreateOnetimeBudgetRequest: strictInput(CreateOnetimeBudgetRequestSchema),
  // The import counts a restore body carries (its import history), closed as the restore body is.
  ImportCountsRequest: strictInput(ImportCountsSchema),
};
