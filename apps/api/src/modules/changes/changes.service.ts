import type { Changes, SyncEntity } from '@nestegg/contract';
import {
  type Account,
  account,
  type Budget,
  type BudgetIncome,
  type BudgetOnetime,
  budget,
  budgetIncome,
  budgetOnetime,
  type Category,
  category,
  type Database,
  type QuickEntry,
  quickEntry,
  type Recurring,
  recurring,
  type Tag,
  tag,
} from '@nestegg/db';
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { ConflictError } from '../../lib/errors.js';
import { jsonObjectOf, rowFromJson } from '../../lib/json-rows.js';

type Changed = Changes['changed'];

/**
 * Each domain's own response view, wired in the composition root (the feed renders records as their routes do).
 * Entries come as the answers stored when they changed (`record_json`, decision L36).
 */
export interface SyncRenderers {
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

interface FeedRow extends Record<string, unknown> {
  counter: { seq: number; prunedSeq: number } | null;
  fetched: number;
  /** bigint: postgres.js hands it over as a string. */
  last_seq: string | null;
  deleted: { entity: SyncEntity; id: number }[];
  /** The live entries as the contract's `Entry[]`, JSON text (not parsed: it is sent as it is). */
  entries: string;
}

/** An answer of the feed whose `changed.entries` travel apart, as the JSON text the statement wrote. */
export interface ChangesPage {
  /** The answer with `changed.entries` empty. */
  head: Changes;
  /** `changed.entries`: a JSON array of `Entry`, rendered by the database as the entry routes render entries. */
  entriesJson: string;
}

/**
 * Delta sync (decisions L3, L34, L35, L36): the member's changes after a cursor, in commit order, each record once
 * with its latest state, deletions as tombstones. One statement of keyed reads whose cost follows the page, not
 * the ledger: the page from `(member_id, seq)`. Entries, most of a page, come with it: the JSON text of their
 * answer was stored with their change, and the api sends it without parsing it. The other records are looked up
 * by their key `(member_id, id)` in a lateral `limit 1` lookup (a plan the statistics cannot turn into a range
 * scan) as JSON rows rendered by their domain's view.
 */
export class ChangesService {
  constructor(private readonly deps: ChangesDeps) {}

  async since(request: ChangesRequest): Promise<ChangesPage> {
    const since = request.since === undefined ? null : decodeCursor(request.since, ['number'] as const)[0];
    const [feed] = await this.deps.db.execute<FeedRow>(feedSql(request.memberId, since, request.limit));
    const current = feed!.counter?.seq ?? 0;
    if (since !== null && (since > current || since < (feed!.counter?.prunedSeq ?? 0))) throw resyncRequired();
    const hasMore = feed!.fetched > request.limit;
    return {
      head: {
        cursor: encodeCursor([hasMore ? Number(feed!.last_seq) : Math.max(current, since ?? 0)]),
        hasMore,
        changed: this.render(feed!),
        deleted: feed!.deleted,
      },
      entriesJson: feed!.entries,
    };
  }

  /** The records other than entries, each by its domain's view; `entries` left empty. */
  private render(feed: FeedRow): Changed {
    const { render } = this.deps;
    const records = <K extends RecordKey>(key: K) =>
      ((feed[key] as Record<string, unknown>[]) ?? []).map((json) => rowFromJson(RECORD_TABLES[key].table, json));
    return {
      entries: [],
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

/**
 * The feed statement: the counter; up to `limit + 1` changes after `since` from `(member_id, seq)`; the page's
 * tombstones; the entries' stored answers; each other kind's live records, every one looked up by its primary
 * key `(member_id, id)`.
 */
export function feedSql(memberId: number, since: number | null, limit: number): SQL {
  // A first sync needs no tombstones: the client has nothing to delete.
  const tombstones = since === null ? sql`and not deleted` : sql``;
  return sql`
      with changes as (
        select member_id, entity, entity_id, seq, deleted, record_json from ledger_change
        where member_id = ${memberId} and seq > ${since ?? 0} ${tombstones}
        order by seq limit ${limit + 1}
      ), page as (
        select * from changes order by seq limit ${limit}
      )
      select
        (select json_build_object('seq', seq, 'prunedSeq', pruned_seq) from member_change_counter
          where member_id = ${memberId}) as counter,
        (select count(*)::int from changes) as fetched,
        (select max(seq) from page) as last_seq,
        (select coalesce(json_agg(json_build_object('entity', entity, 'id', entity_id) order by seq), '[]')
          from page where deleted) as deleted,
        ${changedEntries} as entries,
        ${RECORD_COLUMNS}`;
}

/** The page's live records of one table, as a JSON array in page order: one key lookup per record. */
function changedRecords(entity: SyncEntity, table: PgTable): SQL {
  return sql`(select coalesce(json_agg(${jsonObjectOf(table, 'r')} order by p.seq), '[]')
    from page p cross join lateral (
      select * from ${table} k where k.member_id = p.member_id and k.id = p.entity_id limit 1) r
    where p.entity = ${sql.raw(`'${entity}'`)} and not p.deleted)`;
}

/**
 * The other kinds' columns of the feed: the same text for every request (no parameter), so rendered once.
 * Building it per request cost the api's main thread about 0.5 ms (drizzle walking ~400 chunks; decision L36).
 */
const RECORD_COLUMNS = sql.raw(
  new PgDialect().sqlToQuery(
    sql.join(
      Object.entries(RECORD_TABLES).map(
        ([key, { entity, table }]) => sql`${changedRecords(entity, table)} as ${sql.identifier(key)}`,
      ),
      sql`, `,
    ),
  ).sql,
);

/**
 * The page's live entries as the JSON text of `Entry[]` in page order: the answers their changes stored
 * (`record_json`, decision L36), joined as `json_agg` joins its elements. Text, so the driver hands it over
 * unparsed.
 */
const changedEntries = sql`(select '[' || coalesce(string_agg(p.record_json, ', ' order by p.seq), '') || ']'
    from page p where p.entity = 'entry' and not p.deleted)`;

function resyncRequired() {
  return new ConflictError(
    'RESYNC_REQUIRED',
    'The cursor is older than the changes kept (or from another ledger): sync again without `since`.',
  );
}
