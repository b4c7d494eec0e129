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

/** A stored entry as the contract's `Entry`. */
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

/** An instant as `Date.prototype.toISOString` writes it (UTC, milliseconds truncated as a JS Date truncates them). */
function isoInstant(column: string): SQL {
  return sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
}

/**
 * `toEntryResponse` written in SQL: the entry row aliased `alias` as the contract's `Entry`, in JSON built by
 * the database (decision L35). Decimals lose their padding as `trimDecimal` trims them (`trim_scale`), instants
 * are written as `toISOString` writes them, tag names come in the tags' own order. The feed sends this text
 * as it is, so `changes-records.test.ts` holds it field by field to what the entry routes answer.
 */
export function entryResponseJson(alias: string): SQL {
  const column = (name: string) => `"${alias}"."${name}"`;
  return sql`json_build_object('id', ${sql.raw(column('id'))}, 'type', ${sql.raw(column('type'))},
    'amount', ${sql.raw(column('amount'))}, 'date', ${sql.raw(column('entry_date'))},
    'memo', ${sql.raw(column('memo'))}, 'category', ${sql.raw(column('category'))},
    'accountId', ${sql.raw(column('account_id'))},
    'tags', array(select t.name from ${entryTag} et join ${tag} t on t.member_id = et.member_id and t.id = et.tag_id
                   where et.member_id = ${sql.raw(column('member_id'))} and et.entry_id = ${sql.raw(column('id'))}
                   order by t.sort_order, t.id),
    'currency', ${sql.raw(column('currency'))},
    'originalAmount', trim_scale(${sql.raw(column('original_amount'))})::text,
    'exchangeRate', trim_scale(${sql.raw(column('exchange_rate'))})::text,
    'installmentMonths', ${sql.raw(column('installment_months'))}, 'pending', ${sql.raw(column('pending'))},
    'notifKey', ${sql.raw(column('notif_key'))}, 'recurringId', ${sql.raw(column('recurring_id'))},
    'createdAt', ${isoInstant(column('created_at'))}, 'updatedAt', ${isoInstant(column('updated_at'))})`;
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
