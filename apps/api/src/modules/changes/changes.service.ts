import type { Changes, SyncEntity } from '@nestegg/contract';
import {
  type Account,
  type AccountEntry,
  account,
  accountEntry,
  type Budget,
  type BudgetIncome,
  type BudgetOnetime,
  budget,
  budgetIncome,
  budgetOnetime,
  type Category,
  category,
  type Database,
  entryTag,
  type QuickEntry,
  quickEntry,
  type Recurring,
  recurring,
  type Tag,
  tag,
} from '@nestegg/db';
import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { ConflictError } from '../../lib/errors.js';
import { jsonObjectOf, rowFromDriver, rowFromJson } from '../../lib/json-rows.js';

type Changed = Changes['changed'];

/** An entry row with its tag names, as the entry view renders it. */
export interface EntryWithTags {
  row: AccountEntry;
  tags: string[];
}

/** Each domain's own response view, wired in the composition root (the feed renders records as their routes do). */
export interface SyncRenderers {
  entries(rows: EntryWithTags[]): Changed['entries'];
  wallets(rows: Account[]): Changed['wallets'];
  categories(rows: Category[]): Changed['categories'];
  tags(rows: Tag[]): Changed['tags'];
  recurrings(rows: Recurring[]): Changed['recurrings'];
  quickEntries(rows: QuickEntry[]): Changed['quickEntries'];
  budgets(rows: Budget[]): Changed['budgets'];
  onetimeBudgets(rows: BudgetOnetime[]): Changed['onetimeBudgets'];
  budgetIncomes(rows: BudgetIncome[]): Changed['budgetIncomes'];
}

export interface ChangesDeps {
  db: Database;
  render: SyncRenderers;
}

export interface ChangesRequest {
  memberId: number;
  /** The `cursor` of the previous sync; undefined for everything. */
  since?: string;
  limit: number;
}

/** The synced tables other than entries (which carry their tags), by the key of `changed` and their entity name. */
const RECORD_TABLES = {
  wallets: { entity: 'wallet', table: account },
  categories: { entity: 'category', table: category },
  tags: { entity: 'tag', table: tag },
  recurrings: { entity: 'recurring', table: recurring },
  quickEntries: { entity: 'quick_entry', table: quickEntry },
  budgets: { entity: 'budget', table: budget },
  onetimeBudgets: { entity: 'budget_onetime', table: budgetOnetime },
  budgetIncomes: { entity: 'budget_income', table: budgetIncome },
} as const satisfies Record<string, { entity: SyncEntity; table: PgTable }>;
type RecordKey = keyof typeof RECORD_TABLES;

/** A row of the page statement: the counter, one change of the page, and the entry it names (when live). */
interface PageRow extends Record<string, unknown> {
  /** bigint: postgres.js hands it over as a string; null when the member has never changed anything. */
  counter_seq: string | null;
  pruned_seq: string | null;
  entity: SyncEntity | null;
  entity_id: number | null;
  seq: string | null;
  deleted: boolean | null;
  /** The entry's columns by their database names, null unless the change is a live entry. */
  id: number | null;
  /** The entry's tag ids, unordered (names and order come with the records). */
  tag_ids: number[] | null;
}

/**
 * The page's records other than entries, as JSON arrays by the key of `changed`, and `[id, name]` of the tags
 * its entries carry, in the member's tag order.
 */
type RecordsRow = Record<RecordKey, Record<string, unknown>[]> & { tag_names: [number, string][] };

/**
 * Delta sync (decisions L3, L33): the member's changes after a cursor, in commit order, each record once with
 * its latest state, deletions as tombstones. At most two statements, each a keyed read whose cost follows the
 * page, not the ledger: the page of changes through `(member_id, seq)` with the counter and, per live entry,
 * the entry row by its key (plain columns, no JSON); then, only when the page holds other records, those by
 * their keys (`(member_id, id)`, one lateral lookup per id).
 */
export class ChangesService {
  constructor(private readonly deps: ChangesDeps) {}

  async since(request: ChangesRequest): Promise<Changes> {
    const since = request.since === undefined ? null : decodeCursor(request.since, ['number'] as const)[0];
    const rows = await this.deps.db.execute<PageRow>(feedPageSql(request.memberId, since, request.limit));
    const counter = rows[0];
    const current = counter?.counter_seq == null ? 0 : Number(counter.counter_seq);
    const prunedSeq = counter?.pruned_seq == null ? 0 : Number(counter.pruned_seq);
    if (since !== null && (since > current || since < prunedSeq)) throw resyncRequired();
    const changes = rows.filter((row) => row.seq !== null);
    const hasMore = changes.length > request.limit;
    const page = changes.slice(0, request.limit);
    const deleted = page
      .filter((row) => row.deleted)
      .map((row) => ({ entity: row.entity as SyncEntity, id: row.entity_id as number }));
    const entryRows = page.filter((row) => row.entity === 'entry' && !row.deleted && row.id !== null);
    const wanted = recordIdsOf(page, entryRows);
    const records = wanted ? await this.readRecords(request.memberId, wanted) : null;
    const tagOrder = new Map((records?.tag_names ?? []).map(([id, name], index) => [id, { name, index }]));
    const entries = entryRows.map((row) => ({
      row: rowFromDriver(accountEntry, row) as AccountEntry,
      tags: tagNamesOf(row.tag_ids ?? [], tagOrder),
    }));
    return {
      cursor: encodeCursor([hasMore ? Number(page[page.length - 1]!.seq) : Math.max(current, since ?? 0)]),
      hasMore,
      changed: this.render(entries, records),
      deleted,
    };
  }

  private async readRecords(memberId: number, ids: RecordIds): Promise<RecordsRow> {
    const rows = await this.deps.db.execute<RecordsRow>(feedRecordsSql(memberId, ids));
    return rows[0] as RecordsRow;
  }

  private render(entries: EntryWithTags[], feed: RecordsRow | null): Changed {
    const { render } = this.deps;
    const records = <K extends RecordKey>(key: K) =>
      (feed?.[key] ?? []).map((json) => rowFromJson(RECORD_TABLES[key].table, json));
    return {
      entries: render.entries(entries),
      wallets: render.wallets(records('wallets') as Account[]),
      categories: render.categories(records('categories') as Category[]),
      tags: render.tags(records('tags') as Tag[]),
      recurrings: render.recurrings(records('recurrings') as Recurring[]),
      quickEntries: render.quickEntries(records('quickEntries') as QuickEntry[]),
      budgets: render.budgets(records('budgets') as Budget[]),
      onetimeBudgets: render.onetimeBudgets(records('onetimeBudgets') as BudgetOnetime[]),
      budgetIncomes: render.budgetIncomes(records('budgetIncomes') as BudgetIncome[]),
    };
  }
}

const ENTITY_KEYS = new Map<SyncEntity, RecordKey>(
  Object.entries(RECORD_TABLES).map(([key, { entity }]) => [entity, key as RecordKey]),
);

/** Ids to read in the second statement: each kind's live records in page order, and the entries' tags. */
type RecordIds = Record<RecordKey, number[]> & { tagIds: number[] };

/** What the page needs beyond its entries; null when nothing (the common sync of entries without tags). */
function recordIdsOf(page: PageRow[], entryRows: PageRow[]): RecordIds | null {
  const ids = Object.fromEntries(Object.keys(RECORD_TABLES).map((key) => [key, [] as number[]])) as Record<
    RecordKey,
    number[]
  >;
  let any = false;
  for (const row of page) {
    const key = row.deleted ? undefined : ENTITY_KEYS.get(row.entity as SyncEntity);
    if (key === undefined) continue;
    ids[key].push(row.entity_id as number);
    any = true;
  }
  const tagIds = [...new Set(entryRows.flatMap((row) => row.tag_ids ?? []))];
  return any || tagIds.length > 0 ? { ...ids, tagIds } : null;
}

/** An entry's tag names in the member's tag order (a tag deleted meanwhile is left out: its entries are logged again). */
function tagNamesOf(tagIds: number[], order: Map<number, { name: string; index: number }>): string[] {
  return tagIds
    .flatMap((id) => {
      const known = order.get(id);
      return known ? [known] : [];
    })
    .sort((a, b) => a.index - b.index)
    .map(({ name }) => name);
}

const entryColumns = sql.join(
  Object.values(getTableColumns(accountEntry)).map((column) => sql.raw(`"account_entry"."${column.name}"`)),
  sql`, `,
);

/**
 * The page statement: the member's counter, then up to `limit + 1` changes after `since` read in `seq` order
 * from `(member_id, seq)`, each live entry joined by its primary key `(member_id, id)` with its tag names.
 * Both lateral subqueries end in `limit`, so the planner keeps them as per-row keyed reads whatever the
 * statistics say (a member holding half the table included). No counter row → no row (nothing ever changed).
 */
export function feedPageSql(memberId: number, since: number | null, limit: number): SQL {
  // A first sync needs no tombstones: the client has nothing to delete.
  const tombstones = since === null ? sql`and not l.deleted` : sql``;
  return sql`
    select c.seq as counter_seq, c.pruned_seq, p.entity, p.entity_id, p.seq, p.deleted, e.*
      from member_change_counter c
      left join lateral (
        select l.entity, l.entity_id, l.seq, l.deleted from ledger_change l
         where l.member_id = ${memberId} and l.seq > ${since ?? 0} ${tombstones}
         order by l.seq limit ${limit + 1}) p on true
      left join lateral (
        select ${entryColumns}, array(
                 select et.tag_id from ${entryTag} et
                  where et.member_id = "account_entry"."member_id" and et.entry_id = "account_entry"."id") as tag_ids
          from ${accountEntry}
         where "account_entry"."member_id" = ${memberId} and "account_entry"."id" = p.entity_id
           and p.entity = 'entry' and not p.deleted
         limit 1) e on true
     where c.member_id = ${memberId}
     order by p.seq`;
}

/**
 * The page's other live records, each kind as a JSON array in page order: one keyed lookup per id
 * (`(member_id, id)`), numerics as text so no digit is lost. The text is the same for every page (empty
 * arrays for absent kinds), so it is prepared once per connection.
 */
export function feedRecordsSql(memberId: number, ids: RecordIds): SQL {
  const columns = Object.entries(RECORD_TABLES).map(([key, { table }]) => {
    const list = `{${ids[key as RecordKey].join(',')}}`;
    return sql`(select coalesce(json_agg(${jsonObjectOf(table, 'r')} order by k.ord), '[]')
      from unnest(${list}::int[]) with ordinality as k(id, ord)
      cross join lateral (select * from ${table} t where t.member_id = ${memberId} and t.id = k.id limit 1) r
    ) as ${sql.identifier(key)}`;
  });
  const tagNames = sql`(select coalesce(json_agg(json_build_array(t.id, t.name) order by t.sort_order, t.id), '[]')
      from ${tag} t where t.member_id = ${memberId} and t.id = any(${`{${ids.tagIds.join(',')}}`}::int[])) as tag_names`;
  return sql`select ${sql.join(columns, sql`, `)}, ${tagNames}`;
}

function resyncRequired() {
  return new ConflictError(
    'RESYNC_REQUIRED',
    'The cursor is older than the changes kept (or from another ledger): sync again without `since`.',
  );
}
