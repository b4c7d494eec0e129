import type { Entry } from '@nestegg/contract';
import { type AccountEntry, accountEntry, type DbOrTx, entryTag, tag } from '@nestegg/db';
import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';

/** An entry row and the names of its tags. */
export type EntryWithTags = AccountEntry & { tags: string[] };

/**
 * The entry's tag names in the tags' own order, as a column of the statement that reads the entries (so a
 * page and its tags are one statement, never a query per entry).
 */
export const entryTagNames: SQL<string[]> = sql<string[]>`coalesce((
  select array_agg(t.name order by t.sort_order, t.id)
    from ${entryTag} et join ${tag} t on t.member_id = et.member_id and t.id = et.tag_id
   where et.member_id = ${sql.raw('"account_entry"."member_id"')} and et.entry_id = ${sql.raw('"account_entry"."id"')}
), '{}')`;

/** Every column of an entry plus its tag names. */
export const entryWithTagsColumns = {
  id: accountEntry.id,
  memberId: accountEntry.memberId,
  accountId: accountEntry.accountId,
  type: accountEntry.type,
  amount: accountEntry.amount,
  entryDate: accountEntry.entryDate,
  memo: accountEntry.memo,
  category: accountEntry.category,
  currency: accountEntry.currency,
  originalAmount: accountEntry.originalAmount,
  exchangeRate: accountEntry.exchangeRate,
  installmentMonths: accountEntry.installmentMonths,
  pending: accountEntry.pending,
  notifKey: accountEntry.notifKey,
  importKey: accountEntry.importKey,
  recurringId: accountEntry.recurringId,
  occurrenceDate: accountEntry.occurrenceDate,
  createdAt: accountEntry.createdAt,
  updatedAt: accountEntry.updatedAt,
  tags: entryTagNames,
};

/** Newest date first, then newest id: the order of every entry list. */
export const entryOrder = [desc(accountEntry.entryDate), desc(accountEntry.id)] as const;

/** `12.5000` → `12.5`, `1350.0000000000` → `1350`: the decimal as written, without the column's padding. */
export function trimDecimal(value: string): string {
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

/**
 * A stored entry as the contract's `Entry`. Its SQL twin is `nestegg_entry_json` (migration 0020, decision L36),
 * which stores each changed entry's answer for the delta feed: `changes-records.test.ts` holds the two to the
 * same answer field by field.
 */
export function toEntryResponse(row: AccountEntry, tagNames: readonly string[]): Entry {
  return {
    id: row.id,
    type: row.type,
    amount: row.amount,
    date: row.entryDate,
    memo: row.memo,
    category: row.category,
    accountId: row.accountId,
    tags: [...tagNames],
    currency: row.currency,
    originalAmount: row.originalAmount === null ? null : trimDecimal(row.originalAmount),
    exchangeRate: row.exchangeRate === null ? null : trimDecimal(row.exchangeRate),
    installmentMonths: row.installmentMonths,
    pending: row.pending,
    notifKey: row.notifKey,
    recurringId: row.recurringId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Entries of one member by id, each with its tags, in one statement (newest first; unknown ids are skipped). */
export async function loadEntriesWithTags(
  db: DbOrTx,
  memberId: number,
  ids: readonly number[],
): Promise<EntryWithTags[]> {
  if (ids.length === 0) return [];
  return db
    .select(entryWithTagsColumns)
    .from(accountEntry)
    .where(and(eq(accountEntry.memberId, memberId), inArray(accountEntry.id, [...ids])))
    .orderBy(...entryOrder);
}

/** Tags sorted as `entryTagNames` sorts them. */
export function tagNamesInOrder(tags: readonly { id: number; name: string; sortOrder: number }[]): string[] {
  return [...tags].sort((a, b) => a.sortOrder - b.sortOrder || a.id - b.id).map((t) => t.name);
}
