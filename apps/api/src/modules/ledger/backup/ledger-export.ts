/**
 * The reads of an export, inside one read-only snapshot: the small lists first (as one JSON head), then the
 * entries in keyset batches, each batch one JSON text, so the whole backup is never held in memory. Every
 * item is written in the shape the restore body takes (the contract's input types), references by name.
 */
import type {
  BackupAccountSchema,
  BackupCategorySchema,
  BackupEntrySchema,
  BackupImportSchema,
  BackupObjectSchema,
  BackupQuickEntrySchema,
  BackupRecurringSchema,
} from '@nestegg/contract';
import {
  account,
  accountEntry,
  budget,
  budgetIncome,
  budgetOnetime,
  category,
  type DbOrTx,
  quickEntry,
  recurring,
  statementImport,
  tag,
} from '@nestegg/db';
import { and, asc, eq, sql } from 'drizzle-orm';
import { type AnyPgColumn, alias } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { entryTagNames, trimDecimal } from '../entries/index.js';
import type { AccountNumberCipher } from '../wallets/index.js';
import { toWallet, walletColumns } from '../wallets/index.js';
import type { RestoreCalendar } from './ledger-restore.js';

/** Entries per read: one JSON chunk of roughly 300 KB. */
export const EXPORT_BATCH_SIZE = 2_000;

type BackupHead = Omit<z.input<typeof BackupObjectSchema>, 'entries'>;
type BackupEntry = z.input<typeof BackupEntrySchema>;

/** The wallet a row names, by name (null when it has none or it was deleted). */
const walletName = (walletId: AnyPgColumn, memberId: AnyPgColumn) =>
  sql<string | null>`(select a.name from ${account} a where a.member_id = ${memberId} and a.id = ${walletId})`;

async function accounts(
  tx: DbOrTx,
  memberId: number,
  cipher: AccountNumberCipher,
): Promise<z.input<typeof BackupAccountSchema>[]> {
  const rows = await tx
    .select(walletColumns)
    .from(account)
    .where(eq(account.memberId, memberId))
    .orderBy(asc(account.sortOrder), asc(account.id));
  // The wallet as the api shows it, less what a restore assigns anew and what is derived (a credit line's
  // figures follow from its terms and balance).
  return rows.map((row) => {
    const {
      id: _id,
      createdAt: _createdAt,
      updatedAt: _updatedAt,
      creditLine: _creditLine,
      ...backedUp
    } = toWallet(row, cipher);
    return backedUp;
  });
}

/** Top-level categories first, each group by sort order (restore inserts the top level first too). */
async function categories(tx: DbOrTx, memberId: number): Promise<z.input<typeof BackupCategorySchema>[]> {
  const parent = alias(category, 'parent');
  return tx
    .select({ name: category.name, type: category.type, parent: parent.name, sortOrder: category.sortOrder })
    .from(category)
    .leftJoin(parent, and(eq(parent.memberId, category.memberId), eq(parent.id, category.parentId)))
    .where(eq(category.memberId, memberId))
    .orderBy(sql`${category.parentId} is not null`, asc(category.type), asc(category.sortOrder), asc(category.id));
}

async function recurrings(tx: DbOrTx, memberId: number): Promise<z.input<typeof BackupRecurringSchema>[]> {
  return tx
    .select({
      name: recurring.name,
      type: recurring.type,
      amount: recurring.amount,
      category: recurring.category,
      account: walletName(recurring.accountId, recurring.memberId),
      memo: recurring.memo,
      frequency: recurring.frequency,
      dayOfMonth: recurring.dayOfMonth,
      dayOfWeek: recurring.dayOfWeek,
      monthOfYear: recurring.monthOfYear,
      startDate: recurring.startDate,
      endDate: recurring.endDate,
      active: recurring.active,
      lastRunOn: recurring.lastRunOn,
    })
    .from(recurring)
    .where(eq(recurring.memberId, memberId))
    .orderBy(asc(recurring.id));
}

async function quickEntries(tx: DbOrTx, memberId: number): Promise<z.input<typeof BackupQuickEntrySchema>[]> {
  return tx
    .select({
      name: quickEntry.name,
      type: quickEntry.type,
      amount: quickEntry.amount,
      category: quickEntry.category,
      account: walletName(quickEntry.accountId, quickEntry.memberId),
      memo: quickEntry.memo,
      sortOrder: quickEntry.sortOrder,
    })
    .from(quickEntry)
    .where(eq(quickEntry.memberId, memberId))
    .orderBy(asc(quickEntry.sortOrder), asc(quickEntry.id));
}

/** Committed (and undone) statement imports, oldest first, as history (decision SI1). */
async function imports(tx: DbOrTx, memberId: number): Promise<z.input<typeof BackupImportSchema>[]> {
  const rows = await tx
    .select({
      fileName: statementImport.fileName,
      fileHash: statementImport.fileHash,
      reading: statementImport.reading,
      status: statementImport.status,
      committedAt: statementImport.committedAt,
      counts: statementImport.counts,
    })
    .from(statementImport)
    .where(and(eq(statementImport.memberId, memberId), sql`${statementImport.status} <> 'PREVIEW'`))
    .orderBy(asc(statementImport.committedAt), asc(statementImport.id));
  return rows.map((row) => ({
    fileName: row.fileName,
    fileHash: row.fileHash,
    format: (row.reading as { format: z.input<typeof BackupImportSchema>['format'] }).format,
    status: row.status as 'COMMITTED' | 'UNDONE',
    committedAt: row.committedAt!.toISOString(),
    counts: row.counts as z.input<typeof BackupImportSchema>['counts'],
  }));
}

async function monthBudgets(tx: DbOrTx, memberId: number, calendar: RestoreCalendar) {
  const inMonth = (table: typeof budget | typeof budgetIncome) =>
    and(eq(table.memberId, memberId), eq(table.year, calendar.year), eq(table.month, calendar.month));
  const budgets = await tx
    .select({ category: budget.category, amount: budget.amount })
    .from(budget)
    .where(inMonth(budget))
    .orderBy(asc(budget.category));
  const [income] = await tx.select({ amount: budgetIncome.amount }).from(budgetIncome).where(inMonth(budgetIncome));
  const onetimeBudgets = await tx
    .select({
      name: budgetOnetime.name,
      amount: budgetOnetime.amount,
      startDate: budgetOnetime.startDate,
      endDate: budgetOnetime.endDate,
      category: budgetOnetime.category,
      memo: budgetOnetime.memo,
    })
    .from(budgetOnetime)
    .where(eq(budgetOnetime.memberId, memberId))
    .orderBy(asc(budgetOnetime.startDate), asc(budgetOnetime.id));
  return { budgets, onetimeBudgets, expectedIncome: income?.amount ?? null };
}

/**
 * Everything but the entries, as the opening of the backup's JSON text (it ends where the entries begin).
 * Budgets and the expected income are the current month's: restore places them there.
 */
export async function readHead(
  tx: DbOrTx,
  memberId: number,
  calendar: RestoreCalendar,
  cipher: AccountNumberCipher,
  exportedAt: Date,
): Promise<string> {
  const tags = await tx
    .select({ name: tag.name, sortOrder: tag.sortOrder })
    .from(tag)
    .where(eq(tag.memberId, memberId))
    .orderBy(asc(tag.sortOrder), asc(tag.id));
  const head: BackupHead = {
    version: 1,
    exportedAt: exportedAt.toISOString(),
    accounts: await accounts(tx, memberId, cipher),
    tags,
    categories: await categories(tx, memberId),
    recurrings: await recurrings(tx, memberId),
    ...(await monthBudgets(tx, memberId, calendar)),
    quickEntries: await quickEntries(tx, memberId),
    imports: await imports(tx, memberId),
  };
  return `${JSON.stringify(head).slice(0, -1)},"entries":[`;
}

/** The closing of the backup's JSON text. */
export const BACKUP_TAIL = ']}';

const entryColumns = {
  id: accountEntry.id,
  type: accountEntry.type,
  amount: accountEntry.amount,
  date: accountEntry.entryDate,
  memo: accountEntry.memo,
  category: accountEntry.category,
  account: walletName(accountEntry.accountId, accountEntry.memberId),
  tags: entryTagNames,
  currency: accountEntry.currency,
  originalAmount: accountEntry.originalAmount,
  exchangeRate: accountEntry.exchangeRate,
  installmentMonths: accountEntry.installmentMonths,
  pending: accountEntry.pending,
  notifKey: accountEntry.notifKey,
  importKey: accountEntry.importKey,
};

/** One batch of entries after `after` (keyset on date and id), oldest first, with wallet and tag names. */
const entryBatch = (tx: DbOrTx, memberId: number, after: { date: string; id: number } | null) =>
  tx
    .select(entryColumns)
    .from(accountEntry)
    .where(
      and(
        eq(accountEntry.memberId, memberId),
        after ? sql`(${accountEntry.entryDate}, ${accountEntry.id}) > (${after.date}::date, ${after.id})` : undefined,
      ),
    )
    .orderBy(asc(accountEntry.entryDate), asc(accountEntry.id))
    .limit(EXPORT_BATCH_SIZE);
type EntryRow = Awaited<ReturnType<typeof entryBatch>>[number];

/** An entry as the backup writes it: empty optional fields left out (entries are most of a backup's bytes). */
function backupEntry(row: EntryRow): BackupEntry {
  const entry: BackupEntry = { type: row.type, amount: row.amount, date: row.date };
  if (row.memo !== null) entry.memo = row.memo;
  if (row.category !== null) entry.category = row.category;
  if (row.account !== null) entry.account = row.account;
  if (row.tags.length > 0) entry.tags = row.tags;
  if (row.currency !== null) {
    entry.currency = row.currency;
    entry.originalAmount = row.originalAmount === null ? null : trimDecimal(row.originalAmount);
    entry.exchangeRate = row.exchangeRate === null ? null : trimDecimal(row.exchangeRate);
  }
  if (row.installmentMonths !== null) entry.installmentMonths = row.installmentMonths;
  if (row.pending) entry.pending = true;
  if (row.notifKey !== null) entry.notifKey = row.notifKey;
  if (row.importKey !== null) entry.importKey = row.importKey;
  return entry;
}

/** The entries, oldest first, as comma-joined JSON chunks of one batch each (keyset on date and id). */
export async function* entryChunks(tx: DbOrTx, memberId: number): AsyncGenerator<string> {
  let after: { date: string; id: number } | null = null;
  let first = true;
  for (;;) {
    const rows = await entryBatch(tx, memberId, after);
    if (rows.length === 0) return;
    const text = JSON.stringify(rows.map(backupEntry)).slice(1, -1);
    yield first ? text : `,${text}`;
    first = false;
    if (rows.length < EXPORT_BATCH_SIZE) return;
    const last = rows.at(-1)!;
    after = { date: last.date, id: last.id };
  }
}
