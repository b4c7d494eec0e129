import { walletTypes } from '@nestegg/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type postgres from 'postgres';
import type { BaselineDeps, BaselineHandler } from '../rows/types.js';
import {
  API_TIME_ZONE,
  addDays,
  creditLineOf,
  dateIn,
  type LoanTerms,
  nextOccurrence,
  outstandingPrincipal,
  type Period,
  trailingPeriods,
} from './domain.js';
import { resolveSession } from './session.js';

/*
 * The api's ledger reads without the framework (apps/api/src/modules/ledger/{entries,wallets,changes}): the same
 * statements, written as postgres.js tagged templates whose text is the text drizzle builds (the harness
 * compares them), and the same JSON, built by hand from the rows.
 */

type Sql = postgres.Sql;

// ---------------------------------------------------------------------------------------------------
// Shared: the caller, cursors, values as the api renders them
// ---------------------------------------------------------------------------------------------------

/** The caller's member id, or the problem the api's guard answers (login routes; premium ones also want the plan). */
export async function memberOf(
  deps: BaselineDeps,
  request: FastifyRequest,
  level: 'login' | 'premium',
): Promise<number | { status: number; code: string }> {
  const session = await resolveSession(deps, request);
  if (!session) return { status: 401, code: 'UNAUTHENTICATED' };
  if (level === 'premium' && session.plan !== 'PREMIUM' && session.role !== 'ADMIN') {
    return { status: 403, code: 'PREMIUM_REQUIRED' };
  }
  return session.memberId;
}

/** A guarded handler: `serve` runs for the caller's member, anything else gets the guard's problem. */
export function guarded(
  deps: BaselineDeps,
  level: 'login' | 'premium',
  serve: (memberId: number, query: Record<string, string | undefined>, reply: FastifyReply) => Promise<unknown>,
): BaselineHandler {
  return async (request, reply) => {
    const member = await memberOf(deps, request, level);
    if (typeof member !== 'number') return reply.code(member.status).send({ code: member.code });
    return serve(member, request.query as Record<string, string | undefined>, reply);
  };
}

class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

/** Sends a `Problem` the way the api's handler does (status and code; the harness only loads 2xx paths). */
export async function answer(reply: FastifyReply, work: () => Promise<unknown>): Promise<unknown> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Problem) return reply.code(error.status).send({ code: error.code });
    throw error;
  }
}

/** apps/api/src/lib/cursor.ts: base64url JSON of a version and the sort key. */
export const encodeCursor = (key: readonly (string | number)[]) =>
  Buffer.from(JSON.stringify([1, ...key])).toString('base64url');

function decodeCursor(cursor: string, shape: readonly ('string' | 'number')[]): (string | number)[] {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new Problem(400, 'CURSOR_INVALID');
  }
  if (!Array.isArray(decoded) || decoded[0] !== 1 || decoded.length !== shape.length + 1) {
    throw new Problem(400, 'CURSOR_INVALID');
  }
  const key = decoded.slice(1) as (string | number)[];
  const fits = (part: unknown, index: number) =>
    typeof part === shape[index] && (typeof part !== 'number' || Number.isSafeInteger(part));
  if (!key.every(fits)) throw new Problem(400, 'CURSOR_INVALID');
  return key;
}

/** postgres.js reads `date` columns as UTC midnights; the api (drizzle) keeps them as `YYYY-MM-DD`. */
const isoDay = (value: Date | string) => (typeof value === 'string' ? value : value.toISOString().slice(0, 10));
const instant = (value: Date | string) => (typeof value === 'string' ? new Date(value) : value).toISOString();
const money = (value: string | number) => Number(value);
const moneyOrNull = (value: string | number | null) => (value === null ? null : Number(value));
/** entry.view.ts `trimDecimal`. */
const trimDecimal = (value: string | null) =>
  value === null ? null : value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;

/** An entry's fields, whether read as columns or as the delta sync's JSON. */
interface EntryFields {
  id: number;
  type: string;
  amount: string | number;
  date: Date | string;
  memo: string | null;
  category: string | null;
  accountId: number | null;
  currency: string | null;
  originalAmount: string | null;
  exchangeRate: string | null;
  installmentMonths: number | null;
  pending: boolean;
  notifKey: string | null;
  recurringId: number | null;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** entry.view.ts `toEntryResponse`. */
function entryResponse(entry: EntryFields, tags: string[]) {
  return {
    id: entry.id,
    type: entry.type,
    amount: money(entry.amount),
    date: isoDay(entry.date),
    memo: entry.memo,
    category: entry.category,
    accountId: entry.accountId,
    tags,
    currency: entry.currency,
    originalAmount: trimDecimal(entry.originalAmount),
    exchangeRate: trimDecimal(entry.exchangeRate),
    installmentMonths: entry.installmentMonths,
    pending: entry.pending,
    notifKey: entry.notifKey,
    recurringId: entry.recurringId,
    createdAt: instant(entry.createdAt),
    updatedAt: instant(entry.updatedAt),
  };
}

// ---------------------------------------------------------------------------------------------------
// GET /api/account/entries (entries/entry-list.ts)
// ---------------------------------------------------------------------------------------------------

interface EntryRow {
  id: number;
  account_id: number | null;
  type: string;
  amount: string;
  entry_date: Date;
  memo: string | null;
  category: string | null;
  currency: string | null;
  original_amount: string | null;
  exchange_rate: string | null;
  installment_months: number | null;
  pending: boolean;
  notif_key: string | null;
  recurring_id: number | null;
  created_at: Date;
  updated_at: Date;
  /** The tag names: drizzle leaves the expression unnamed. */
  coalesce: string[];
}

const entryOfRow = (row: EntryRow) =>
  entryResponse(
    {
      ...row,
      date: row.entry_date,
      accountId: row.account_id,
      originalAmount: row.original_amount,
      exchangeRate: row.exchange_rate,
      installmentMonths: row.installment_months,
      notifKey: row.notif_key,
      recurringId: row.recurring_id,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    },
    row.coalesce,
  );

/** Every column of an entry plus its tag names (entry.view.ts `entryWithTagsColumns`). */
const entryColumns = (sql: Sql) =>
  sql`"id", "member_id", "account_id", "type", "amount", "entry_date", "memo", "category", "currency", "original_amount", "exchange_rate", "installment_months", "pending", "notif_key", "import_key", "recurring_id", "occurrence_date", "created_at", "updated_at", coalesce((
  select array_agg(t.name order by t.sort_order, t.id)
    from "entry_tag" et join "tag" t on t.member_id = et.member_id and t.id = et.tag_id
   where et.member_id = "account_entry"."member_id" and et.entry_id = "account_entry"."id"
), '{}')`;

const NEWEST_FIRST = '"account_entry"."entry_date" desc, "account_entry"."id" desc';

interface ListQuery {
  memberId: number;
  page: number;
  size: number;
  from?: string;
  to?: string;
  type?: string;
  category?: string;
  /** The memo term (`q`) and its `ilike` pattern. */
  term?: string;
  pattern?: string;
  pending?: boolean;
  after?: { date: string; id: number };
}

/** entry-list.ts `conditionsOn`, for a filter the rows use (the tag and wallet filters are not). */
function conditionsOn(sql: Sql, table: '"account_entry"' | '"x"', query: ListQuery) {
  const column = (name: string) => sql.unsafe(`${table}."${name}"`);
  // entry-list.ts `memoPiecesOf` (decision L37): a term of three characters or more is found through the memo
  // index, whose keys carry the member.
  const { term } = query;
  const conditions = [
    term !== undefined && [...term].length >= 3
      ? sql`nestegg_memo_grams(${column('member_id')}, ${column('memo')}) @> (select nestegg_memo_grams(${query.memberId}, ${term}))`
      : sql`${column('member_id')} = ${query.memberId}`,
  ];
  if (query.from !== undefined) conditions.push(sql`${column('entry_date')} >= ${query.from}`);
  if (query.to !== undefined) conditions.push(sql`${column('entry_date')} <= ${query.to}`);
  if (query.type !== undefined) conditions.push(sql`${column('type')} = ${query.type}`);
  if (query.pattern !== undefined) conditions.push(sql`${column('memo')} ilike (select ${query.pattern}::text)`);
  if (query.pending !== undefined) conditions.push(sql`${column('pending')} = ${query.pending}`);
  if (query.after) {
    conditions.push(
      sql`(${column('entry_date')}, ${column('id')}) < (${query.after.date}::date, ${query.after.id}::integer)`,
    );
  }
  return conditions;
}

/** drizzle's `and`: one condition as it is, more joined and parenthesised. */
function and(sql: Sql, conditions: postgres.PendingQuery<postgres.Row[]>[]) {
  const joined = conditions.reduce((all, next) => sql`${all} and ${next}`);
  return conditions.length === 1 ? joined : sql`(${joined})`;
}

const ofCategoryName = (sql: Sql) => sql`"x"."category" = n.name and (n.type is null or "x"."type" = n.type)`;

/** The category and its sub-categories' (type, name) pairs (entry-list.ts `categoryNames`). */
const categoryNames = (sql: Sql, memberId: number, category: string) => sql`(
  select ${category}::text as name, null::ledger_type as type
  union all
  select child.name, child.type from "category" child
    join "category" parent on parent.member_id = child.member_id and parent.id = child.parent_id
   where parent.member_id = ${memberId} and parent.name = ${category}
) n`;

function pageStatement(sql: Sql, query: ListQuery, offset: number) {
  const limit = query.size + 1;
  const { category } = query;
  if (category === undefined) {
    return sql<
      EntryRow[]
    >`select ${entryColumns(sql)} from "account_entry" where ${and(sql, conditionsOn(sql, '"account_entry"', query))} order by ${sql.unsafe(NEWEST_FIRST)} limit ${limit} offset ${offset}`;
  }
  const perName = and(sql, [...conditionsOn(sql, '"x"', query), ofCategoryName(sql)]);
  return sql<
    EntryRow[]
  >`select ${entryColumns(sql)} from "account_entry" where ("account_entry"."member_id" = ${query.memberId} and "account_entry"."id" in (select picked.id from ${categoryNames(sql, query.memberId, category)} cross join lateral (
      select "x"."id", "x"."entry_date" from "account_entry" x where ${perName}
       order by "x"."entry_date" desc, "x"."id" desc limit ${offset + limit}) picked
     order by picked.entry_date desc, picked.id desc limit ${limit} offset ${offset})) order by ${sql.unsafe(NEWEST_FIRST)} limit ${limit}`;
}

const confirmedSum = (table: string, type: 'INCOME' | 'EXPENSE') =>
  `sum(${table}."amount") filter (where ${table}."type" = '${type}' and not ${table}."pending")`;

/** total, income, expense and the wallet check (always true without a wallet filter), as one row of values. */
function totalsStatement(sql: Sql, query: ListQuery) {
  const { category } = query;
  if (category === undefined) {
    const e = '"account_entry"';
    return sql`select count(*), coalesce(${sql.unsafe(confirmedSum(e, 'INCOME'))}, 0), coalesce(${sql.unsafe(confirmedSum(e, 'EXPENSE'))}, 0), true from "account_entry" where ${and(sql, conditionsOn(sql, e, query))}`.values();
  }
  const perName = and(sql, [...conditionsOn(sql, '"x"', query), ofCategoryName(sql)]);
  return sql`select coalesce(sum(per_name.total), 0), coalesce(sum(per_name.income), 0), coalesce(sum(per_name.expense), 0), true from ${categoryNames(sql, query.memberId, category)} cross join lateral (
      select count(*) as total, ${sql.unsafe(confirmedSum('"x"', 'INCOME'))} as income, ${sql.unsafe(confirmedSum('"x"', 'EXPENSE'))} as expense
        from "account_entry" x where ${perName}) per_name`.values();
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function positionOf(cursor: string): { date: string; id: number } {
  const [date, id] = decodeCursor(cursor, ['string', 'number']) as [string, number];
  const calendarDate = DATE.test(date) && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date);
  if (!calendarDate || id < 1 || id > 2_147_483_647) throw new Problem(400, 'CURSOR_INVALID');
  return { date, id };
}

/** admin/members.service.ts `likeContains`. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function listQueryOf(memberId: number, query: Record<string, string | undefined>): ListQuery {
  if (query.tag !== undefined || query.accountId !== undefined) {
    throw new Error('the baseline has no tag or wallet filter: no row uses them');
  }
  const q = query.q?.trim();
  return {
    memberId,
    page: Number(query.page ?? 1),
    size: Number(query.size ?? 20),
    from: query.from,
    to: query.to,
    type: query.type,
    category: query.category?.trim(),
    term: q,
    pattern: q === undefined ? undefined : likeContains(q),
    pending: query.pending === undefined ? undefined : query.pending === 'true',
    after: query.cursor === undefined ? undefined : positionOf(query.cursor),
  };
}

/** The page and, without a cursor, the filter's totals: two statements in parallel, or the page alone. */
export const entryListBaseline = (deps: BaselineDeps) =>
  guarded(deps, 'login', (memberId, raw, reply) =>
    answer(reply, async () => {
      const query = listQueryOf(memberId, raw);
      if (!query.after && query.page * query.size > 10_000) throw new Problem(400, 'OFFSET_TOO_DEEP');
      const offset = query.after ? 0 : (query.page - 1) * query.size;
      const [rows, totals] = await Promise.all([
        pageStatement(deps.sql, query, offset),
        query.after ? null : totalsStatement(deps.sql, query),
      ]);
      const items = rows.slice(0, query.size);
      const last = items.at(-1);
      const [total, income, expense] = (totals?.[0] ?? []) as [string?, string?, string?];
      return {
        items: items.map(entryOfRow),
        page: query.after ? 1 : query.page,
        size: query.size,
        total: totals ? Number(total ?? 0) : null,
        incomeTotal: totals ? Number(income ?? 0) : null,
        expenseTotal: totals ? Number(expense ?? 0) : null,
        nextCursor: rows.length > query.size && last ? encodeCursor([isoDay(last.entry_date), last.id]) : null,
      };
    }),
  );

// ---------------------------------------------------------------------------------------------------
// GET /api/account/networth and /networth/trend (wallets/wallets.service.ts, wallets/net-worth.ts)
// ---------------------------------------------------------------------------------------------------

interface WalletRow {
  id: number;
  name: string;
  type: string;
  account_number: string | null;
  card_company: string | null;
  opening_balance: string;
  balance: string;
  sort_order: number;
  loan_amount: string | null;
  loan_rate: string | null;
  loan_method: LoanTerms['method'] | null;
  loan_months: number | null;
  loan_start: Date | null;
  manual_valuation: boolean;
  current_value: string | null;
  created_at: Date;
  updated_at: Date;
}

interface ValuedWallet {
  id: number;
  type: string;
  openingBalance: number;
  balance: number;
  createdOn: string;
  manualValuation: boolean;
  currentValue: number | null;
  loan: LoanTerms | null;
}

/** net-worth.ts `loanTermsOf`. */
function loanOf(
  row: Pick<WalletRow, 'type' | 'loan_amount' | 'loan_rate' | 'loan_method' | 'loan_months' | 'loan_start'>,
) {
  const complete =
    row.type === 'LOAN' &&
    row.loan_amount !== null &&
    row.loan_method !== null &&
    row.loan_months !== null &&
    row.loan_start !== null;
  return complete
    ? {
        amount: money(row.loan_amount!),
        annualRatePercent: row.loan_rate,
        method: row.loan_method!,
        months: row.loan_months!,
        start: isoDay(row.loan_start!),
      }
    : null;
}

function valued(row: WalletRow): ValuedWallet {
  return {
    id: row.id,
    type: row.type,
    openingBalance: money(row.opening_balance),
    balance: money(row.balance),
    createdOn: dateIn(API_TIME_ZONE, row.created_at),
    manualValuation: row.manual_valuation,
    currentValue: moneyOrNull(row.current_value),
    loan: loanOf(row),
  };
}

const WALLET_COLUMNS =
  '"id", "name", "type", "account_number", "card_company", "opening_balance", "balance", "sort_order", "loan_amount", "loan_rate", "loan_method", "loan_months", "loan_start", "manual_valuation", "current_value", "created_at", "updated_at"';

const clampMoney = (value: number) => Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, value));

function totalsOf(values: number[]) {
  let assets = 0;
  let liabilities = 0;
  for (const value of values) {
    if (value > 0) assets += value;
    else liabilities -= value;
  }
  return {
    assets: clampMoney(assets),
    liabilities: clampMoney(liabilities),
    netWorth: clampMoney(assets - liabilities),
  };
}

/** net-worth.ts `WalletNow`: what a wallet's value today depends on. */
type WalletNow = Pick<ValuedWallet, 'type' | 'balance' | 'manualValuation' | 'currentValue' | 'loan'>;

function valueToday(wallet: WalletNow, today: string): number {
  if (wallet.manualValuation) return wallet.currentValue ?? 0;
  if (wallet.loan) return -outstandingPrincipal(wallet.loan, today);
  return wallet.balance;
}

const today = () => dateIn(API_TIME_ZONE, new Date());

/** wallets.service.ts `valuing`: the columns a wallet's value today needs. */
const WALLET_NOW_COLUMNS =
  '"type", "balance", "manual_valuation", "current_value", "loan_amount", "loan_rate", "loan_method", "loan_months", "loan_start"';
type WalletNowRow = Pick<
  WalletRow,
  | 'type'
  | 'balance'
  | 'manual_valuation'
  | 'current_value'
  | 'loan_amount'
  | 'loan_rate'
  | 'loan_method'
  | 'loan_months'
  | 'loan_start'
>;

/** wallets.service.ts `walletNowOf`. */
function walletNowOf(row: WalletNowRow): WalletNow {
  return {
    type: row.type,
    balance: money(row.balance),
    manualValuation: row.manual_valuation,
    currentValue: moneyOrNull(row.current_value),
    loan: loanOf(row),
  };
}

/** Net worth now: the wallets' values today. */
export const netWorthBaseline = (deps: BaselineDeps) =>
  guarded(deps, 'login', async (memberId) => {
    const rows = await deps.sql<
      WalletNowRow[]
    >`select ${deps.sql.unsafe(WALLET_NOW_COLUMNS)} from "account" where "account"."member_id" = ${memberId} order by "account"."sort_order" asc, "account"."id" asc`;
    const day = today();
    const wallets = rows.map(walletNowOf);
    const values = wallets.map((wallet) => valueToday(wallet, day));
    const byType = new Map<string, number>();
    wallets.forEach((wallet, index) => {
      byType.set(wallet.type, (byType.get(wallet.type) ?? 0) + values[index]!);
    });
    return {
      asOf: day,
      ...totalsOf(values),
      byType: walletTypes
        .filter((type) => byType.has(type))
        .map((type) => ({
          type,
          amount: clampMoney(byType.get(type)!),
        })),
    };
  });

/** A loan's recorded terms as the trend reads them: `[validFrom, amount, rate, method, months, start]`. */
type LoanVersionTuple = [string, number, string | null, LoanTerms['method'], number, string];

/** The terms in force at each period's end (net-worth.ts `loanTermsOver`). */
function loanTermsOver(current: LoanTerms, versions: LoanVersionTuple[], periods: Period[]): LoanTerms[] {
  if (versions.length === 0) return periods.map(() => current);
  let next = 0;
  return periods.map((period) => {
    while (next < versions.length && versions[next]![0] <= period.end) next += 1;
    const [, amount, annualRatePercent, method, months, start] = versions[Math.max(0, next - 1)]!;
    return { amount, annualRatePercent, method, months, start };
  });
}

/** A wallet's value at the end of each period (net-worth.ts `valuesOver`). */
function valuesOver(
  wallet: ValuedWallet,
  periods: Period[],
  sums: number[],
  recorded: (number | undefined)[],
  loanHistory: LoanVersionTuple[],
) {
  const { loan } = wallet;
  if (wallet.manualValuation) {
    let last = 0;
    return periods.map((_, index) => {
      last = recorded[index] ?? last;
      return last;
    });
  }
  if (loan) {
    const terms = loanTermsOver(loan, loanHistory, periods);
    return periods.map((period, index) => -outstandingPrincipal(terms[index]!, period.end));
  }
  const allEntries = wallet.balance - wallet.openingBalance;
  let after = sums.reduce((total, sum) => total + (sum ?? 0), 0);
  return periods.map((period, index) => {
    after -= sums[index] ?? 0;
    return allEntries - after + (wallet.createdOn <= period.end ? wallet.openingBalance : 0);
  });
}

function trendWallets(sql: Sql, memberId: number, day: string, periods: Period[], thresholds: string) {
  return sql<
    (WalletRow & { json_agg: [number, number][] | null; loan_history: LoanVersionTuple[] | null })[]
  >`select ${sql.unsafe(WALLET_COLUMNS)}, (
    select json_agg(json_build_array(w.bucket, w.delta)) from (
      select case when e.entry_date > ${day} then ${periods.length}::int
                  else width_bucket(e.entry_date, ${thresholds}::date[]) end as bucket,
             sum(case when e.type = 'INCOME' then e.amount else -e.amount end) as delta
        from "account_entry" e
       where e.member_id = "account".member_id and e.account_id = "account".id
         and not e.pending and e.entry_date > ${periods[0]!.end}
       group by 1) w), (
    select json_agg(json_build_array(h.valid_from, h.loan_amount, h.loan_rate::text, h.loan_method, h.loan_months,
                                     h.loan_start) order by h.valid_from)
      from "wallet_loan_history" h
     where h.member_id = "account".member_id and h.account_id = "account".id and "account".type = 'LOAN') as "loan_history" from "account" where "account"."member_id" = ${memberId} order by "account"."sort_order" asc, "account"."id" asc`;
}

function valueBuckets(sql: Sql, memberId: number, day: string, thresholds: string) {
  return sql<
    { account_id: number; bucket: number; value: string }[]
  >`select distinct on ("recorded"."account_id", "bucket") "account_id", "bucket", "value" from (select "account_id", width_bucket("day", ${thresholds}::date[]) as "bucket", "day", "value" from "wallet_value_history" where ("wallet_value_history"."member_id" = ${memberId} and "wallet_value_history"."day" <= ${day})) "recorded" order by "recorded"."account_id", "bucket", "recorded"."day" desc`;
}

/** The trend: wallets with their entries per period, and the manual values per period, in parallel. */
export const netWorthTrendBaseline = (deps: BaselineDeps) =>
  guarded(deps, 'login', async (memberId, query) => {
    const unit = query.unit === 'WEEK' ? 'WEEK' : 'MONTH';
    const count = Number(unit === 'WEEK' ? (query.weeks ?? 13) : (query.months ?? 12));
    const day = today();
    const periods = trailingPeriods(unit, count, day);
    const thresholds = `{${periods
      .slice(1)
      .map((period) => period.start)
      .join(',')}}`;
    const [walletRows, valueRows] = await Promise.all([
      trendWallets(deps.sql, memberId, day, periods, thresholds),
      valueBuckets(deps.sql, memberId, day, thresholds),
    ]);
    const recorded = new Map<number, (number | undefined)[]>();
    for (const row of valueRows) {
      const slots = recorded.get(row.account_id) ?? [];
      slots[row.bucket] = money(row.value);
      recorded.set(row.account_id, slots);
    }
    const perWallet = walletRows.map((row) => {
      const sums: number[] = [];
      // The api leaves the subquery unnamed: PostgreSQL names it after its aggregate.
      for (const [bucket, sum] of row.json_agg ?? []) sums[bucket] = sum;
      return valuesOver(valued(row), periods, sums, recorded.get(row.id) ?? [], row.loan_history ?? []);
    });
    return {
      unit,
      points: periods.map((period, index) => ({
        start: period.start,
        ...totalsOf(perWallet.map((values) => values[index]!)),
      })),
    };
  });

// ---------------------------------------------------------------------------------------------------
// GET /api/account/changes (changes/changes.service.ts, changes/sync-renderers.ts)
// ---------------------------------------------------------------------------------------------------

/** Each synced table's columns in the schema's order (numeric ones travel as text), and its entity. */
const SYNCED = {
  wallets: {
    table: 'account',
    entity: 'wallet',
    columns:
      'id member_id name type account_number card_company opening_balance balance sort_order loan_amount loan_rate: loan_method loan_months loan_start manual_valuation current_value created_at updated_at',
  },
  categories: {
    table: 'category',
    entity: 'category',
    columns: 'id member_id name type parent_id sort_order created_at updated_at',
  },
  tags: { table: 'tag', entity: 'tag', columns: 'id member_id name sort_order created_at' },
  recurrings: {
    table: 'recurring',
    entity: 'recurring',
    columns:
      'id member_id name type amount category account_id memo frequency day_of_month day_of_week month_of_year start_date end_date active last_run_on created_at updated_at',
  },
  quickEntries: {
    table: 'quick_entry',
    entity: 'quick_entry',
    columns: 'id member_id name type amount category account_id memo sort_order created_at updated_at',
  },
  budgets: {
    table: 'budget',
    entity: 'budget',
    columns: 'id member_id category year month amount created_at updated_at',
  },
  onetimeBudgets: {
    table: 'budget_onetime',
    entity: 'budget_onetime',
    columns: 'id member_id name amount start_date end_date category memo created_at updated_at',
  },
  budgetIncomes: {
    table: 'budget_income',
    entity: 'budget_income',
    columns: 'id member_id year month amount created_at updated_at',
  },
} as const;

const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** json-rows.ts `jsonObjectOf`: the row as a JSON object keyed by property (a trailing `:` marks a numeric). */
function jsonObjectOf(columns: string): string {
  const pairs = columns.split(' ').map((column) => {
    const name = column.replace(/:$/, '');
    return `'${camel(name)}', "r"."${name}"${column.endsWith(':') ? '::text' : ''}`;
  });
  return `json_build_object(${pairs.join(', ')})`;
}

const RECORD_JSON = Object.fromEntries(
  Object.entries(SYNCED).map(([key, { columns }]) => [key, jsonObjectOf(columns)]),
);

/**
 * changes.service.ts `feedSql`: the page from (member_id, seq) with the entries' stored answers (decision L36),
 * every other record looked up by its key, as JSON.
 */
function feedText(firstSync: boolean): string {
  const tombstones = firstSync ? 'and not deleted' : '';
  const records = Object.entries(SYNCED).map(
    ([key, { table, entity }]) => `(select coalesce(json_agg(${RECORD_JSON[key]} order by p.seq), '[]')
    from page p cross join lateral (
      select * from "${table}" k where k.member_id = p.member_id and k.id = p.entity_id limit 1) r
    where p.entity = '${entity}' and not p.deleted) as "${key}"`,
  );
  return `
      with changes as (
        select member_id, entity, entity_id, seq, deleted, record_json from ledger_change
        where member_id = $1 and seq > (select $2::bigint) ${tombstones}
        order by seq limit $3
      ), page as (
        select * from changes order by seq limit $4
      )
      select
        (select json_build_object('seq', seq, 'prunedSeq', pruned_seq) from member_change_counter
          where member_id = $5) as counter,
        (select count(*)::int from changes) as fetched,
        (select max(seq) from page) as last_seq,
        (select coalesce(json_agg(json_build_object('entity', entity, 'id', entity_id) order by seq), '[]')
          from page where deleted) as deleted,
        (select '[' || coalesce(string_agg(p.record_json, ', ' order by p.seq), '') || ']'
    from page p where p.entity = 'entry' and not p.deleted) as entries,
        ${records.join(', ')}`;
}
const FEED_TEXT = { first: feedText(true), next: feedText(false) };

type Json = Record<string, unknown>;

interface FeedRow {
  counter: { seq: number; prunedSeq: number } | null;
  fetched: number;
  last_seq: number | null;
  deleted: { entity: string; id: number }[];
  /** `Entry[]` as UTF-8 JSON, sent as it is. */
  entries: Buffer;
  [records: string]: unknown;
}

const FEED_COLUMNS = ['counter', 'fetched', 'last_seq', 'deleted', 'entries', ...Object.keys(SYNCED)];

/** changes.service.ts `since`: the row's columns as PostgreSQL sent them, every one but the entries parsed. */
async function readFeed(sql: Sql, memberId: number, since: number | null, limit: number): Promise<FeedRow> {
  const params: (number | string)[] = [memberId, since ?? 0, limit + 1, limit, memberId];
  const [columns] = await sql
    .unsafe(since === null ? FEED_TEXT.first : FEED_TEXT.next, params, { prepare: true })
    .raw();
  const row: Record<string, unknown> = {};
  FEED_COLUMNS.forEach((name, index) => {
    const text = columns![index] as Buffer | null;
    row[name] = name === 'entries' || text === null ? text : JSON.parse(text.toString());
  });
  return row as FeedRow;
}

/** recurrings.service.ts `nextDateOf`. */
function nextDateOf(row: Json, day: string): string | null {
  if (!row.active) return null;
  const lastRunOn = row.lastRunOn as string | null;
  const settledUpTo = lastRunOn === null ? day : addDays(lastRunOn, 1);
  const rule = {
    frequency: row.frequency,
    dayOfMonth: row.dayOfMonth,
    dayOfWeek: row.dayOfWeek,
    monthOfYear: row.monthOfYear,
    startDate: row.startDate,
    endDate: row.endDate,
  } as Parameters<typeof nextOccurrence>[0];
  return nextOccurrence(rule, settledUpTo > day ? settledUpTo : day);
}

/** Each record but entries as its route renders it (sync-renderers.ts); the records' JSON money arrives as numbers. */
function renderChanged(feed: FeedRow) {
  const records = (key: keyof typeof SYNCED) => (feed[key] as Json[] | null) ?? [];
  const day = dateIn(API_TIME_ZONE, new Date());
  return {
    wallets: records('wallets').map((row) => ({
      id: row.id,
      name: row.name,
      type: row.type,
      accountNumber: row.accountNumber,
      cardCompany: row.cardCompany,
      openingBalance: row.openingBalance,
      balance: row.balance,
      sortOrder: row.sortOrder,
      loanAmount: row.loanAmount,
      loanRate: row.loanRate,
      loanMethod: row.loanMethod,
      loanMonths: row.loanMonths,
      loanStart: row.loanStart,
      manualValuation: row.manualValuation,
      currentValue: row.currentValue,
      // wallet.view.ts `creditLineOfRow` (decision L33).
      creditLine:
        row.type === 'MINUS' && row.loanAmount !== null
          ? creditLineOf(
              {
                limit: row.loanAmount as number,
                annualRatePercent: row.loanRate as string | null,
                months: row.loanMonths as number | null,
                start: row.loanStart as string | null,
              },
              row.balance as number,
            )
          : null,
      createdAt: instant(row.createdAt as string),
      updatedAt: instant(row.updatedAt as string),
    })),
    categories: records('categories').map(({ id, name, type, parentId, sortOrder }) => ({
      id,
      name,
      type,
      parentId,
      sortOrder,
    })),
    tags: records('tags').map(({ id, name, sortOrder }) => ({ id, name, sortOrder })),
    recurrings: records('recurrings').map((row) => ({
      id: row.id,
      name: row.name,
      type: row.type,
      amount: row.amount,
      category: row.category,
      accountId: row.accountId,
      memo: row.memo,
      frequency: row.frequency,
      dayOfMonth: row.dayOfMonth,
      dayOfWeek: row.dayOfWeek,
      monthOfYear: row.monthOfYear,
      startDate: row.startDate,
      endDate: row.endDate,
      active: row.active,
      lastRunOn: row.lastRunOn,
      nextDate: nextDateOf(row, day),
      createdAt: instant(row.createdAt as string),
      updatedAt: instant(row.updatedAt as string),
    })),
    quickEntries: records('quickEntries').map(({ id, name, type, amount, category, accountId, memo, sortOrder }) => ({
      id,
      name,
      type,
      amount,
      category,
      accountId,
      memo,
      sortOrder,
    })),
    budgets: records('budgets').map(({ id, category, year, month, amount }) => ({ id, category, year, month, amount })),
    onetimeBudgets: records('onetimeBudgets').map(({ id, name, amount, startDate, endDate, category, memo }) => ({
      id,
      name,
      amount,
      startDate,
      endDate,
      category,
      memo,
    })),
    budgetIncomes: records('budgetIncomes').map(({ id, year, month, amount }) => ({ id, year, month, amount })),
  };
}

/** The feed after the cursor: the api's one statement of keyed reads, rendered per domain (entries by the database); a cursor out of range → 409. */
export const changesBaseline = (deps: BaselineDeps) =>
  guarded(deps, 'login', (memberId, query, reply) =>
    answer(reply, async () => {
      const since = query.since === undefined ? null : (decodeCursor(query.since, ['number'])[0] as number);
      const limit = Number(query.limit ?? 500);
      const feed = await readFeed(deps.sql, memberId, since, limit);
      const current = feed.counter?.seq ?? 0;
      if (since !== null && (since > current || since < (feed.counter?.prunedSeq ?? 0))) {
        throw new Problem(409, 'RESYNC_REQUIRED');
      }
      const hasMore = feed.fetched > limit;
      const cursor = encodeCursor([hasMore ? Number(feed.last_seq) : Math.max(current, since ?? 0)]);
      // routes.ts `changesJson`: the entries' bytes spliced in as the statement wrote them.
      reply.type('application/json; charset=utf-8');
      const before = `{"cursor":${JSON.stringify(cursor)},"hasMore":${hasMore},"changed":{"entries":`;
      const after = `,${JSON.stringify(renderChanged(feed)).slice(1)},"deleted":${JSON.stringify(feed.deleted)}}`;
      return Buffer.concat([Buffer.from(before), feed.entries, Buffer.from(after)]);
    }),
  );
