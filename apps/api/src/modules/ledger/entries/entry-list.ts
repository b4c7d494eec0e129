import { type EntryListQuery, type EntryPage, MAX_ID, MAX_OFFSET_ROWS } from '@nestegg/contract';
import { account, accountEntry, category, type Database, entryTag, tag } from '@nestegg/db';
import { and, eq, gte, lte, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { decodeCursor, encodeCursor } from '../../../lib/cursor.js';
import { BadRequestError, NotFoundError } from '../../../lib/errors.js';
import { likeContains } from '../../../lib/sql-like.js';
import { entryOrder, entryWithTagsColumns, toEntryResponse } from './entry.view.js';

/** The optional filters of the list, in the order their presence is written into a statement's key. */
const FILTERS = ['from', 'to', 'type', 'category', 'accountId', 'tag', 'q', 'pending'] as const;
type Filter = (typeof FILTERS)[number];

/**
 * Which filters a request uses, whether its memo term is long enough for the memo index (three characters or
 * more), and whether it continues after a cursor: each is one SQL text, prepared once.
 */
export type Shape = Record<Filter, boolean> & { memoIndexed: boolean; afterCursor: boolean };

/** The memo index keys 3-character pieces of a memo: a shorter term has none (decision L37). */
const MEMO_PIECE = 3;

const p = sql.placeholder;
const e = accountEntry;
/** The entries as seen inside the per-category lookups. */
const x = alias(accountEntry, 'x');
type Entries = typeof e | typeof x;

/** The filters on either view of the entries (the category is matched where the rows come from). */
function conditionsOn(t: Entries, shape: Shape, options: { tag: boolean } = { tag: true }): SQL[] {
  const conditions: SQL[] = [shape.memoIndexed ? memoPiecesOf(t) : eq(t.memberId, p('memberId'))];
  if (shape.from) conditions.push(gte(t.entryDate, p('from')));
  if (shape.to) conditions.push(lte(t.entryDate, p('to')));
  if (shape.type) conditions.push(eq(t.type, p('type')));
  if (shape.accountId) conditions.push(eq(t.accountId, p('accountId')));
  if (shape.tag && options.tag) {
    conditions.push(sql`${t.id} in (
      select et.entry_id from ${entryTag} et join ${tag} tg on tg.member_id = et.member_id and tg.id = et.tag_id
       where et.member_id = ${p('memberId')} and tg.name = ${p('tag')})`);
  }
  // `%`, `_` and `\` arrive escaped; with a term of three characters or more, memoPiecesOf finds the candidates.
  // A subquery, as the term's pieces: the pattern's value never makes a custom plan look cheaper (L37).
  if (shape.q) conditions.push(sql`${t.memo} ilike (select ${p('pattern')}::text)`);
  if (shape.pending) conditions.push(eq(t.pending, p('pending')));
  if (shape.afterCursor) {
    conditions.push(sql`(${t.entryDate}, ${t.id}) < (${p('afterDate')}::date, ${p('afterId')}::integer)`);
  }
  return conditions;
}

/**
 * The member's entries whose memo holds every 3-character piece of the term, through the memo index (decision
 * L37): its keys carry the member, so this is also the member condition, and the index is the only way the
 * planner can serve it (an extra `member_id =` would let it AND in a scan of all the member's entries). The
 * term's pieces are a subquery so that custom and generic plans look alike and Postgres keeps the generic one.
 */
const memoPiecesOf = (t: Entries) =>
  sql`nestegg_memo_grams(${t.memberId}, ${t.memo}) @> (select nestegg_memo_grams(${p('memberId')}, ${p('term')}))`;

/**
 * The category filter: the entries named by the category itself (either type), plus those of its
 * sub-categories (their type and name: names are unique per type only), resolved in the same statement.
 */
const categoryNames = sql`(
  select ${p('category')}::text as name, null::ledger_type as type
  union all
  select child.name, child.type from ${category} child
    join ${category} parent on parent.member_id = child.member_id and parent.id = child.parent_id
   where parent.member_id = ${p('memberId')} and parent.name = ${p('category')}
) n`;

const ofCategoryName = sql`${x.category} = n.name and (n.type is null or ${x.type} = n.type)`;

/**
 * The entries carrying the tag, found through the tag (entry_tag's (member, tag, entry) index). `offset 0`
 * keeps the planner from folding it back into a walk of the whole ledger by date, which it would choose
 * for a first page however rare the tag is: this way the cost follows the tag's entries.
 */
const taggedEntries = sql`(
  select et.entry_id from ${entryTag} et
    join ${tag} tg on tg.member_id = et.member_id and tg.id = et.tag_id
   where et.member_id = ${p('memberId')} and tg.name = ${p('tag')} offset 0
) tagged join ${accountEntry} x on x.member_id = ${p('memberId')} and x.id = tagged.entry_id`;

const newestFirst = (t: Entries) => sql`${t.entryDate} desc, ${t.id} desc`;

/**
 * The page's ids when a category or tag filters the list. The date index alone would walk the whole ledger
 * for a rare category or tag; instead each category name is read newest first through the (member,
 * category, date, id) index, at most `depth` rows each, and a tag's entries through entry_tag: the cost
 * follows the matches, not the ledger.
 */
function pickedPage(shape: Shape): SQL {
  const window = sql`limit ${p('limit')} offset ${p('offset')}`;
  if (shape.category) {
    return sql`select picked.id from ${categoryNames} cross join lateral (
      select ${x.id}, ${x.entryDate} from ${accountEntry} x where ${and(...conditionsOn(x, shape), ofCategoryName)}
       order by ${newestFirst(x)} limit ${p('depth')}) picked
     order by picked.entry_date desc, picked.id desc ${window}`;
  }
  return sql`select ${x.id} from ${taggedEntries}
    where ${and(...conditionsOn(x, shape, { tag: false }))}
    order by ${newestFirst(x)} ${window}`;
}

const walletExists = sql<boolean>`exists (select 1 from ${account} a
  where a.member_id = ${p('memberId')} and a.id = ${p('accountId')})`;

/** Totals count confirmed entries only: a pending one may still be wrong or a duplicate. */
const confirmedSum = (t: Entries, type: 'INCOME' | 'EXPENSE') =>
  sql`sum(${t.amount}) filter (where ${t.type} = ${sql.raw(`'${type}'`)} and not ${t.pending})`;

export function shapeOf(query: EntryListQuery): Shape {
  const present = Object.fromEntries(FILTERS.map((f) => [f, query[f] !== undefined])) as Record<Filter, boolean>;
  const memoIndexed = query.q !== undefined && [...query.q].length >= MEMO_PIECE;
  return { ...present, memoIndexed, afterCursor: query.cursor !== undefined };
}

function keyOf(shape: Shape): string {
  const memo = shape.memoIndexed ? 'm' : '';
  return `${FILTERS.map((f) => (shape[f] ? '1' : '0')).join('')}${memo}${shape.afterCursor ? 'k' : 'o'}`;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The position a cursor continues after; anything but a cursor this list gave → 400 CURSOR_INVALID. */
function positionOf(cursor: string): { afterDate: string; afterId: number } {
  const [afterDate, afterId] = decodeCursor(cursor, ['string', 'number'] as const);
  const calendarDate = DATE.test(afterDate) && new Date(`${afterDate}T00:00:00Z`).toISOString().startsWith(afterDate);
  if (!calendarDate || afterId < 1 || afterId > MAX_ID) {
    throw new BadRequestError('CURSOR_INVALID', 'The cursor is not one this list gave.');
  }
  return { afterDate, afterId };
}

type ListParameters = ReturnType<typeof parametersOf>;

/** What a page says beside its rows. */
interface Summary {
  walletFound: boolean;
  totals: Pick<EntryPage, 'total' | 'incomeTotal' | 'expenseTotal'>;
}

/** The placeholder values of a request (a statement ignores those it does not use). */
function parametersOf(memberId: number, query: EntryListQuery) {
  return {
    memberId,
    from: query.from,
    to: query.to,
    type: query.type,
    category: query.category,
    accountId: query.accountId,
    tag: query.tag,
    term: query.q,
    pattern: query.q === undefined ? undefined : likeContains(query.q),
    pending: query.pending,
  };
}

/**
 * The entry list: newest date first, then newest id, by offset (`page`) or keyset (`cursor`). At most two
 * statements per request, run in parallel: the page with each entry's tags, and either the filter's
 * totals (pages without a cursor; they also tell whether a filtered wallet is the member's) or, on cursor
 * pages filtered by wallet, that wallet check alone. Each filter combination is a statement prepared once.
 */
export class EntryList {
  private readonly pages = new Map<string, ReturnType<EntryList['buildPage']>>();
  private readonly totals = new Map<string, ReturnType<EntryList['buildTotals']>>();
  private readonly walletCheck;

  constructor(private readonly db: Database) {
    this.walletCheck = db
      .select({ found: sql<number>`1` })
      .from(account)
      .where(and(eq(account.memberId, p('memberId')), eq(account.id, p('accountId'))))
      .prepare('entries_list_wallet');
  }

  async list(memberId: number, query: EntryListQuery): Promise<EntryPage> {
    const { page, size, cursor } = query;
    if (cursor === undefined && page * size > MAX_OFFSET_ROWS) {
      throw new BadRequestError('OFFSET_TOO_DEEP', `Pages deeper than ${MAX_OFFSET_ROWS} rows are read with cursor.`);
    }
    const shape = shapeOf(query);
    const parameters = parametersOf(memberId, query);
    const position = cursor === undefined ? undefined : positionOf(cursor);
    const offset = position ? 0 : (page - 1) * size;
    const window = { limit: size + 1, offset, depth: offset + size + 1 };
    const [rows, summary] = await Promise.all([
      this.statement(this.pages, shape, this.buildPage).execute({ ...parameters, ...position, ...window }),
      position ? this.walletSummary(parameters) : this.totalsSummary(shape, parameters),
    ]);
    if (!summary.walletFound) throw new NotFoundError('wallet');
    const items = rows.slice(0, size);
    const last = items.at(-1);
    return {
      items: items.map((row) => toEntryResponse(row, row.tags)),
      page: position ? 1 : page,
      size,
      ...summary.totals,
      nextCursor: rows.length > size && last ? encodeCursor([last.entryDate, last.id]) : null,
    };
  }

  /** Pages without a cursor: the filter's totals, and whether a filtered wallet is the member's. */
  private async totalsSummary(shape: Shape, parameters: ListParameters): Promise<Summary> {
    const [row] = await this.statement(this.totals, shape, this.buildTotals).execute(parameters);
    return {
      walletFound: row?.walletFound === true,
      totals: {
        total: Number(row?.total ?? 0),
        incomeTotal: Number(row?.income ?? 0),
        expenseTotal: Number(row?.expense ?? 0),
      },
    };
  }

  /** Cursor pages: no totals (the client keeps the first page's); only the wallet check, when filtered. */
  private async walletSummary(parameters: ListParameters): Promise<Summary> {
    const noTotals = { total: null, incomeTotal: null, expenseTotal: null };
    if (parameters.accountId === undefined) return { walletFound: true, totals: noTotals };
    const found = await this.walletCheck.execute(parameters);
    return { walletFound: found.length > 0, totals: noTotals };
  }

  private statement<S>(cache: Map<string, S>, shape: Shape, build: (shape: Shape, key: string) => S): S {
    const key = keyOf(shape);
    let statement = cache.get(key);
    if (!statement) {
      statement = build.call(this, shape, key);
      cache.set(key, statement);
    }
    return statement;
  }

  private buildPage(shape: Shape, key: string) {
    return pageQuery(this.db, shape).prepare(`entries_list_page_${key}`);
  }

  private buildTotals(shape: Shape, key: string) {
    return totalsQuery(this.db, shape).prepare(`entries_list_totals_${key}`);
  }
}

/** The page with each entry's tags: newest first, by offset or after a cursor. */
export function pageQuery(db: Database, shape: Shape) {
  const columns = db.select(entryWithTagsColumns).from(e);
  if (!shape.category && !shape.tag) {
    return columns
      .where(and(...conditionsOn(e, shape)))
      .orderBy(...entryOrder)
      .limit(p('limit'))
      .offset(p('offset'));
  }
  return columns
    .where(and(eq(e.memberId, p('memberId')), sql`${e.id} in (${pickedPage(shape)})`))
    .orderBy(...entryOrder)
    .limit(p('limit'));
}

/** One aggregate over the whole filter, read from where the page's rows come from. */
export function totalsQuery(db: Database, shape: Shape) {
  const walletFound = shape.accountId ? walletExists : sql<boolean>`true`;
  const sums = (t: Entries) => ({
    total: sql<string>`count(*)`,
    income: sql<string>`coalesce(${confirmedSum(t, 'INCOME')}, 0)`,
    expense: sql<string>`coalesce(${confirmedSum(t, 'EXPENSE')}, 0)`,
    walletFound,
  });
  if (shape.category) {
    const perName = sql`${categoryNames} cross join lateral (
      select count(*) as total, ${confirmedSum(x, 'INCOME')} as income, ${confirmedSum(x, 'EXPENSE')} as expense
        from ${accountEntry} x where ${and(...conditionsOn(x, shape), ofCategoryName)}) per_name`;
    return db
      .select({
        total: sql<string>`coalesce(sum(per_name.total), 0)`,
        income: sql<string>`coalesce(sum(per_name.income), 0)`,
        expense: sql<string>`coalesce(sum(per_name.expense), 0)`,
        walletFound,
      })
      .from(perName);
  }
  if (shape.tag) {
    return db
      .select(sums(x))
      .from(taggedEntries)
      .where(and(...conditionsOn(x, shape, { tag: false })));
  }
  return db
    .select(sums(e))
    .from(e)
    .where(and(...conditionsOn(e, shape)));
}
