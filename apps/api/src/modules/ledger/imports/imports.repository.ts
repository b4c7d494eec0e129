/**
 * The statements that read and write imports, their rows and profiles, and the entries an import compares with
 * (decision SI1). Every statement is scoped by the member; rows are written in one statement per batch
 * (`jsonb_to_recordset`), never one per row.
 */
import type { ImportOutcome } from '@nestegg/contract';
import {
  account,
  accountEntry,
  category,
  type Database,
  type DbOrTx,
  type StatementImport,
  statementImport,
  statementImportProfile,
  statementImportRow,
} from '@nestegg/db';
import type { CalendarDate } from '@nestegg/domain';
import { and, asc, desc, eq, gt, lt, or, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { fullSpeed, type GiveWay } from '../../../lib/give-way.js';
import type { ImportKey } from './import-keys.js';
import type { ExistingEntry } from './outcomes.js';

/** One row as stored: the parser's line, its local amount and rate, and what it became. */
export interface StoredRow {
  rowIndex: number;
  line: unknown;
  amount: number | null;
  exchangeRate: string | null;
  outcome: ImportOutcome;
  importKey: ImportKey | null;
  entryId: number | null;
  cancelsRow: number | null;
  reason: string | null;
  category: string | null;
  candidates: number[];
  wasPending: boolean | null;
}

/** Rows per statement; each batch is one step of a long import, which gives way to other requests (P35). */
export const ROW_BATCH = 5_000;

/** `rows` in batches of `ROW_BATCH`. */
export function* batchesOf<T>(rows: readonly T[]): Generator<T[]> {
  for (let start = 0; start < rows.length; start += ROW_BATCH) yield rows.slice(start, start + ROW_BATCH);
}

/** Keys as one `text[]` parameter: one statement text whatever their number (keys are `si1:` + base64url). */
const keyArray = (keys: readonly ImportKey[]) => sql`${`{${keys.join(',')}}`}::text[]`;
const bigintArray = (values: readonly number[]) => sql`${`{${values.join(',')}}`}::bigint[]`;

export async function insertImport(tx: DbOrTx, values: typeof statementImport.$inferInsert): Promise<StatementImport> {
  const [row] = await tx.insert(statementImport).values(values).returning();
  return row!;
}

export async function importOf(
  db: DbOrTx,
  memberId: number,
  id: number,
  lock = false,
): Promise<StatementImport | null> {
  const query = db
    .select()
    .from(statementImport)
    .where(and(eq(statementImport.memberId, memberId), eq(statementImport.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function updateImport(
  tx: DbOrTx,
  memberId: number,
  id: number,
  values: PgUpdateSetSource<typeof statementImport>,
): Promise<StatementImport> {
  const [row] = await tx
    .update(statementImport)
    .set(values)
    .where(and(eq(statementImport.memberId, memberId), eq(statementImport.id, id)))
    .returning();
  return row!;
}

/** The member's imports, newest first, `size` after the cursor's (created at, id). */
export function importsPage(db: Database, memberId: number, size: number, after: { at: Date; id: number } | null) {
  const older = after
    ? or(
        lt(statementImport.createdAt, after.at),
        and(eq(statementImport.createdAt, after.at), lt(statementImport.id, after.id)),
      )
    : undefined;
  return db
    .select()
    .from(statementImport)
    .where(and(eq(statementImport.memberId, memberId), older))
    .orderBy(desc(statementImport.createdAt), desc(statementImport.id))
    .limit(size);
}

/** Replaces the import's rows (a new preview), in batches of one statement each, each a `step`. */
export async function replaceRows(
  tx: DbOrTx,
  memberId: number,
  importId: number,
  rows: StoredRow[],
  step: GiveWay = fullSpeed,
): Promise<void> {
  await tx
    .delete(statementImportRow)
    .where(and(eq(statementImportRow.memberId, memberId), eq(statementImportRow.importId, importId)));
  for (const rowBatch of batchesOf(rows)) {
    const batch = rowBatch.map((row) => ({
      row_index: row.rowIndex,
      line: row.line,
      amount: row.amount,
      exchange_rate: row.exchangeRate,
      outcome: row.outcome,
      import_key: row.importKey,
      entry_id: row.entryId,
      cancels_row: row.cancelsRow,
      reason: row.reason,
      category: row.category,
      candidates: row.candidates,
      was_pending: row.wasPending,
    }));
    await step(() =>
      tx.execute(sql`
      insert into statement_import_row (member_id, import_id, row_index, line, amount, exchange_rate, outcome,
                                        import_key, entry_id, cancels_row, reason, category, candidates, was_pending)
      select ${memberId}::int, ${importId}::int, r.row_index, r.line, r.amount, r.exchange_rate, r.outcome,
             r.import_key, r.entry_id, r.cancels_row, r.reason, r.category, r.candidates, r.was_pending
        from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as r(
          row_index int, line jsonb, amount bigint, exchange_rate text, outcome statement_row_outcome,
          import_key text, entry_id int, cancels_row int, reason text, category text, candidates int[],
          was_pending boolean)`),
    );
  }
}

/**
 * Sets what the commit decided of each stored row (outcome, entry, cancelled row, reason, candidates, whether the
 * entry was pending), in batches of one statement each: the rows' lines, amounts, rates, keys and categories
 * are the preview's and stay as stored, so they are neither sent again nor parsed again.
 */
export async function updateDecisions(
  tx: DbOrTx,
  memberId: number,
  importId: number,
  rows: StoredRow[],
  step: GiveWay = fullSpeed,
): Promise<void> {
  for (const rowBatch of batchesOf(rows)) {
    const batch = rowBatch.map((row) => ({
      row_index: row.rowIndex,
      outcome: row.outcome,
      entry_id: row.entryId,
      cancels_row: row.cancelsRow,
      reason: row.reason,
      candidates: row.candidates,
      was_pending: row.wasPending,
    }));
    await step(() =>
      tx.execute(sql`
      update statement_import_row r
         set outcome = v.outcome, entry_id = v.entry_id, cancels_row = v.cancels_row, reason = v.reason,
             candidates = v.candidates, was_pending = v.was_pending
        from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as v(
          row_index int, outcome statement_row_outcome, entry_id int, cancels_row int, reason text,
          candidates int[], was_pending boolean)
       where r.member_id = ${memberId}::int and r.import_id = ${importId}::int and r.row_index = v.row_index`),
    );
  }
}

/** Every row of an import, in file order, read a batch at a time, each a `step`. */
export async function rowsOf(
  db: DbOrTx,
  memberId: number,
  importId: number,
  step: GiveWay = fullSpeed,
): Promise<StoredRow[]> {
  const rows: StoredRow[] = [];
  for (;;) {
    const afterIndex = rows.at(-1)?.rowIndex ?? -1;
    const batch = await step(() => rowsAfter(db, memberId, importId, { afterIndex, size: ROW_BATCH }));
    rows.push(...batch);
    if (batch.length < ROW_BATCH) return rows;
  }
}

/** A page of an import's rows after `afterIndex`, optionally of one outcome (an index serves both orders). */
export async function rowsAfter(
  db: DbOrTx,
  memberId: number,
  importId: number,
  options: { outcome?: ImportOutcome | undefined; afterIndex: number; size: number },
): Promise<StoredRow[]> {
  const rows = await db
    .select()
    .from(statementImportRow)
    .where(
      and(
        eq(statementImportRow.memberId, memberId),
        eq(statementImportRow.importId, importId),
        options.outcome ? eq(statementImportRow.outcome, options.outcome) : undefined,
        gt(statementImportRow.rowIndex, options.afterIndex),
      ),
    )
    .orderBy(asc(statementImportRow.rowIndex))
    .limit(options.size);
  return rows.map(storedRow);
}

function storedRow(row: typeof statementImportRow.$inferSelect): StoredRow {
  return {
    rowIndex: row.rowIndex,
    line: row.line,
    amount: row.amount,
    exchangeRate: row.exchangeRate,
    outcome: row.outcome,
    importKey: row.importKey,
    entryId: row.entryId,
    cancelsRow: row.cancelsRow,
    reason: row.reason,
    category: row.category,
    candidates: row.candidates ?? [],
    wasPending: row.wasPending,
  };
}

/**
 * The keys imported before: the entries holding them, and the cancellations committed imports applied (a
 * cancellation leaves no entry, so its key is kept on its row). Excludes `importId`'s own rows.
 */
export async function knownKeys(
  db: DbOrTx,
  memberId: number,
  keys: ImportKey[],
  importId: number,
): Promise<Map<ImportKey, number | null>> {
  const known = new Map<ImportKey, number | null>();
  if (keys.length === 0) return known;
  const entries = await db
    .select({ key: accountEntry.importKey, id: accountEntry.id })
    .from(accountEntry)
    .where(and(eq(accountEntry.memberId, memberId), sql`${accountEntry.importKey} = any(${keyArray(keys)})`));
  for (const entry of entries) known.set(entry.key!, entry.id);
  const cancellations = (await db.execute(sql`
    select r.import_key as key
      from statement_import_row r
      join statement_import i on i.member_id = r.member_id and i.id = r.import_id
     where r.member_id = ${memberId}::int and r.outcome = 'CANCELLATION' and r.import_key = any(${keyArray(keys)})
       and i.status = 'COMMITTED' and i.id <> ${importId}::int`)) as unknown as { key: string }[];
  for (const row of cancellations) if (!known.has(row.key)) known.set(row.key, null);
  return known;
}

/** The member's entries dated in `[from, to]` with one of `amounts`: what rows may duplicate, match or cancel. */
export async function entriesNear(
  db: DbOrTx,
  memberId: number,
  range: { from: CalendarDate; to: CalendarDate },
  amounts: number[],
): Promise<ExistingEntry[]> {
  if (amounts.length === 0) return [];
  return db
    .select({
      id: accountEntry.id,
      type: accountEntry.type,
      amount: accountEntry.amount,
      date: accountEntry.entryDate,
      memo: accountEntry.memo,
      accountId: accountEntry.accountId,
      importKey: accountEntry.importKey,
    })
    .from(accountEntry)
    .where(
      and(
        eq(accountEntry.memberId, memberId),
        sql`${accountEntry.entryDate} between ${range.from} and ${range.to}`,
        sql`${accountEntry.amount} = any(${bigintArray(amounts)})`,
      ),
    );
}

/** The entries holding `keys` (numbered purchases a cancellation may cancel). */
export async function entriesWithKeys(
  db: DbOrTx,
  memberId: number,
  keys: ImportKey[],
): Promise<Map<ImportKey, number>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .select({ key: accountEntry.importKey, id: accountEntry.id })
    .from(accountEntry)
    .where(and(eq(accountEntry.memberId, memberId), sql`${accountEntry.importKey} = any(${keyArray(keys)})`));
  return new Map(rows.map((row) => [row.key!, row.id]));
}

/** The wallet's type, or null when it is not the member's. */
export async function walletTypeOf(db: DbOrTx, memberId: number, walletId: number): Promise<string | null> {
  const [row] = await db
    .select({ type: account.type })
    .from(account)
    .where(and(eq(account.memberId, memberId), eq(account.id, walletId)));
  return row?.type ?? null;
}

/** The member's category names of each type (an import names only those). */
export async function categoryNames(db: DbOrTx, memberId: number): Promise<Set<string>> {
  const rows = await db
    .select({ name: category.name, type: category.type })
    .from(category)
    .where(eq(category.memberId, memberId));
  return new Set(rows.map((row) => `${row.type}:${row.name}`));
}

export async function profileForShape(db: DbOrTx, memberId: number, shapeKey: string) {
  const [row] = await db
    .select()
    .from(statementImportProfile)
    .where(and(eq(statementImportProfile.memberId, memberId), eq(statementImportProfile.shapeKey, shapeKey)));
  return row ?? null;
}

export async function profileById(db: DbOrTx, memberId: number, id: number) {
  const [row] = await db
    .select()
    .from(statementImportProfile)
    .where(and(eq(statementImportProfile.memberId, memberId), eq(statementImportProfile.id, id)));
  return row ?? null;
}

/** Saves the member's profile of a shape; saving the same shape again replaces it (one per shape). */
export async function saveProfile(
  tx: DbOrTx,
  values: { memberId: number; name: string; shapeKey: string; settings: unknown },
): Promise<{ id: number; name: string }> {
  const [row] = await tx
    .insert(statementImportProfile)
    .values(values)
    .onConflictDoUpdate({
      target: [statementImportProfile.memberId, statementImportProfile.shapeKey],
      set: { name: values.name, settings: values.settings, updatedAt: new Date() },
    })
    .returning({ id: statementImportProfile.id, name: statementImportProfile.name });
  return row!;
}

export function profilesOf(db: Database, memberId: number) {
  return db
    .select()
    .from(statementImportProfile)
    .where(eq(statementImportProfile.memberId, memberId))
    .orderBy(asc(statementImportProfile.name), asc(statementImportProfile.id));
}

export async function deleteProfile(db: Database, memberId: number, id: number): Promise<boolean> {
  const deleted = await db
    .delete(statementImportProfile)
    .where(and(eq(statementImportProfile.memberId, memberId), eq(statementImportProfile.id, id)))
    .returning({ id: statementImportProfile.id });
  return deleted.length > 0;
}

export async function deleteImport(db: DbOrTx, memberId: number, id: number): Promise<void> {
  await db.delete(statementImport).where(and(eq(statementImport.memberId, memberId), eq(statementImport.id, id)));
}

/** Whether a committed import is past its undo window, by the database's clock (as its `committed_at` is). */
export async function undoExpired(tx: DbOrTx, memberId: number, id: number, hours: number): Promise<boolean> {
  const [row] = (await tx.execute(sql`
    select now() > committed_at + make_interval(hours => ${hours}::int) as expired
      from statement_import where member_id = ${memberId}::int and id = ${id}::int`)) as unknown as {
    expired: boolean;
  }[];
  return row?.expired ?? false;
}
