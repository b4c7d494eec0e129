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
  type RawSelect,
  type Recurring,
  rawSelect,
  recurring,
  type Tag,
  tag,
} from '@nestegg/db';
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import { decodeCursor, encodeCursor } from '../../../lib/cursor.js';
import { ConflictError } from '../../../lib/errors.js';
import { jsonObjectOf, rowFromJson } from '../../../lib/json-rows.js';

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
  /** Reads a replica may serve when the request's route allows it (decision DB20); the primary otherwise. */
  reader: Database;
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

/** The feed statement's columns, in select order (its rows come back as undecoded arrays: see `since`). */
const FEED_COLUMNS = ['counter', 'fetched', 'last_seq', 'deleted', 'entries', ...Object.keys(RECORD_TABLES)] as const;
type FeedColumn = (typeof FEED_COLUMNS)[number];
const ENTRIES_COLUMN = FEED_COLUMNS.indexOf('entries');

/** The feed statement's row, every column but the entries decoded from its JSON text. */
interface FeedRow extends Record<Exclude<FeedColumn, 'entries'>, unknown> {
  counter: { seq: number; prunedSeq: number } | null;
  fetched: number;
  /** bigint, as JSON text: a number while it is below 2^53, which a member's change count is. */
  last_seq: number | null;
  deleted: { entity: SyncEntity; id: number }[];
}

/** An answer of the feed whose `changed.entries` travel apart, as the JSON text the statement wrote. */
export interface ChangesPage {
  /** The answer with `changed.entries` empty. */
  head: Changes;
  /** `changed.entries`: a JSON array of `Entry` in UTF-8, rendered by the database as the entry routes render entries. */
  entriesJson: Buffer;
}

/**
 * Delta sync (decisions L3, L34, L35, L36, P29): the member's changes after a cursor, in commit order, each
 * record once with its latest state, deletions as tombstones. One statement of keyed reads whose cost follows the
 * page, not the ledger: the page from `(member_id, seq)`. Entries, most of a page, come with it: the JSON text of
 * their answer was stored with their change, and the api sends its bytes as PostgreSQL sent them, without
 * decoding them into a string. The other records are looked up by their key `(member_id, id)` in a lateral
 * `limit 1` lookup (a plan the statistics cannot turn into a range scan) as JSON rows rendered by their domain's view.
 */
export class ChangesService {
  /** The statement for a first sync (no tombstones) and for one after a cursor, each worked out once. */
  private readonly feeds: Record<'first' | 'after', RawSelect<never>>;

  constructor(private readonly deps: ChangesDeps) {
    const statement = (firstSync: boolean) =>
      rawSelect<never>(
        deps.reader,
        feedSql({
          memberId: sql.placeholder('memberId'),
          since: sql.placeholder('since'),
          fetch: sql.placeholder('fetch'),
          limit: sql.placeholder('limit'),
          firstSync,
        }),
      );
    this.feeds = { first: statement(true), after: statement(false) };
  }

  async since(request: ChangesRequest): Promise<ChangesPage> {
    const since = request.since === undefined ? null : decodeCursor(request.since, ['number'] as const)[0];
    const [columns] = await this.feeds[since === null ? 'first' : 'after'].buffers({
      memberId: request.memberId,
      since: since ?? 0,
      fetch: request.limit + 1,
      limit: request.limit,
    });
    const feed = decodeFeedRow(columns!);
    const current = feed.counter?.seq ?? 0;
    if (since !== null && (since > current || since < (feed.counter?.prunedSeq ?? 0))) throw resyncRequired();
    const hasMore = feed.fetched > request.limit;
    return {
      head: {
        cursor: encodeCursor([hasMore ? feed.last_seq! : Math.max(current, since ?? 0)]),
        hasMore,
        changed: this.render(feed),
        deleted: feed.deleted,
      },
      entriesJson: columns![ENTRIES_COLUMN]!,
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

/** The feed statement's parameters: values, or `sql.placeholder`s of a statement prepared once. */
export interface FeedParameters {
  memberId: unknown;
  /** The cursor's change number; 0 for a first sync. */
  since: unknown;
  /** `limit + 1`: one more than the page, to tell whether there is more. */
  fetch: unknown;
  limit: unknown;
  /** A first sync needs no tombstones: the client has nothing to delete. */
  firstSync: boolean;
}

/**
 * The feed statement: the counter; up to `limit + 1` changes after `since` from `(member_id, seq)`; the page's
 * tombstones; the entries' stored answers; each other kind's live records, every one looked up by its primary
 * key `(member_id, id)`. Every column is JSON text (`FEED_COLUMNS`).
 *
 * The cursor's number is read through a sub-select, which the planner cannot see into (decision P30): its
 * estimate of the changes after a number comes from statistics over every member's numbers, and for a member
 * whose numbers run past most others' it would expect a handful of rows. PostgreSQL then judged each run's own
 * plan cheaper than the prepared statement's generic one and planned the statement anew on every request
 * (0.5 ms of its 1.2 ms). Blind to the number, both plans cost the same and the generic one, planned once, is kept.
 */
export function feedSql({ memberId, since, fetch, limit, firstSync }: FeedParameters): SQL {
  const tombstones = firstSync ? sql`and not deleted` : sql``;
  return sql`
      with changes as (
        select member_id, entity, entity_id, seq, deleted, record_json from ledger_change
        where member_id = ${memberId} and seq > (select ${since}::bigint) ${tombstones}
        order by seq limit ${fetch}
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

/** The feed's row with every column but the entries parsed from its JSON text (NULL as null). */
function decodeFeedRow(columns: (Buffer | null)[]): FeedRow {
  const row: Record<string, unknown> = {};
  FEED_COLUMNS.forEach((name, index) => {
    const text = columns[index];
    if (index !== ENTRIES_COLUMN) row[name] = text === null || text === undefined ? null : JSON.parse(text.toString());
  });
  return row as FeedRow;
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
