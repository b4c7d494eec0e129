import type postgres from 'postgres';
import type { BaselineDeps } from '../rows/types.js';
import { API_TIME_ZONE, dateIn, monthOf, monthSpan, monthsEndingAt } from './domain.js';
import { guarded } from './ledger.js';

/*
 * The api's statistics and budget month (apps/api/src/modules/ledger/statistics, budgets/monthly-budgets.ts)
 * without the framework: the same statement text (drizzle's `sql` templates, so their line breaks too),
 * the same roll-ups in plain code.
 */

type Sql = postgres.Sql;
type LedgerType = 'INCOME' | 'EXPENSE';

/** statistics/money.ts `moneyOf`: sums saturate at ±2^53. */
const moneyOf = (value: string | number | null | undefined) =>
  Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(value ?? 0)));

const today = () => dateIn(API_TIME_ZONE, new Date());

interface CategoryRow {
  type: LedgerType;
  category: string | null;
  parentCategory: string | null;
  amount: number;
  count: number;
}

interface GroupedRow {
  month: number;
  type: LedgerType;
  category: string | null;
  parent_category: string | null;
  amount: string;
  count: number;
}

/** statistics/rollup.ts `totalsOf`. */
function totalsOf(rows: readonly Pick<CategoryRow, 'type' | 'amount'>[]) {
  let income = 0;
  let expense = 0;
  for (const row of rows) {
    if (row.type === 'INCOME') income += row.amount;
    else expense += row.amount;
  }
  return { income: moneyOf(income), expense: moneyOf(expense), balance: moneyOf(income - expense) };
}

interface Ranked {
  category: string | null;
  type: LedgerType;
  amount: number;
}

/** Largest amount first; ties by type (expense first), then by name (no category last). */
function byAmount(a: Ranked, b: Ranked): number {
  if (a.amount !== b.amount) return b.amount - a.amount;
  if (a.type !== b.type) return a.type === 'EXPENSE' ? -1 : 1;
  if (a.category === b.category) return 0;
  if (a.category === null) return 1;
  if (b.category === null) return -1;
  return a.category < b.category ? -1 : 1;
}

function sumBy<T extends Ranked & { count: number }>(
  rows: readonly CategoryRow[],
  keyOf: (row: CategoryRow) => string,
  make: (row: CategoryRow) => T,
): T[] {
  const sums = new Map<string, T>();
  for (const row of rows) {
    const key = keyOf(row);
    const sum = sums.get(key);
    if (sum) {
      sum.amount = moneyOf(sum.amount + row.amount);
      sum.count += row.count;
    } else {
      sums.set(key, { ...make(row), amount: row.amount, count: row.count });
    }
  }
  return [...sums.values()].sort(byAmount);
}

const byCategory = (rows: readonly CategoryRow[]) =>
  sumBy(
    rows,
    (row) => JSON.stringify([row.type, row.category]),
    (row) => ({ category: row.category, parentCategory: row.parentCategory, type: row.type, amount: 0, count: 0 }),
  );

const byTopCategory = (rows: readonly CategoryRow[]) => {
  const topOf = (row: CategoryRow) => row.parentCategory ?? row.category;
  return sumBy(
    rows,
    (row) => JSON.stringify([row.type, topOf(row)]),
    (row) => ({ category: topOf(row), type: row.type, amount: 0, count: 0 }),
  );
};

/** Sums per month, type and category with the category's parent (statistics.service.ts `groupedByCategory`). */
function grouped(sql: Sql, memberId: number, first: string, last: string) {
  return sql<GroupedRow[]>`
    with totals as (
      select extract(month from e.entry_date)::int as month, e.type, e.category,
        sum(e.amount) as amount, count(*)::int as count
      from account_entry e where e.member_id = ${memberId} and not e.pending and e.entry_date between ${first}::date and ${last}::date
      group by 1, e.type, e.category
    )
    select t.month, t.type, t.category, p.name as parent_category, t.amount, t.count
      from totals t
      left join category c on c.member_id = ${memberId} and c.type = t.type and c.name = t.category
      left join category p on p.member_id = ${memberId} and p.id = c.parent_id`;
}

const toCategoryRow = (row: GroupedRow): CategoryRow => ({
  type: row.type,
  category: row.category,
  parentCategory: row.parent_category,
  amount: moneyOf(row.amount),
  count: row.count,
});

export const monthlyBaseline = (deps: BaselineDeps) =>
  guarded(deps, 'premium', async (memberId, query) => {
    const year = Number(query.year);
    const month = Number(query.month);
    const span = monthSpan(year, month);
    const rows = (await grouped(deps.sql, memberId, span.first, span.last)).map(toCategoryRow);
    return { year, month, ...totalsOf(rows), byCategory: byCategory(rows), byTopCategory: byTopCategory(rows) };
  });

export const yearlyBaseline = (deps: BaselineDeps) =>
  guarded(deps, 'premium', async (memberId, query) => {
    const year = Number(query.year);
    const groups = await grouped(deps.sql, memberId, monthSpan(year, 1).first, monthSpan(year, 12).last);
    const rows = groups.map(toCategoryRow);
    const months = Array.from({ length: 12 }, (_, index) => ({
      month: index + 1,
      ...totalsOf(rows.filter((_, at) => groups[at]!.month === index + 1)),
    }));
    return { year, ...totalsOf(rows), months, byCategory: byCategory(rows), byTopCategory: byTopCategory(rows) };
  });

/** Income and expense of the last months, the current one included (statistics.service.ts `trend`). */
export const trendBaseline = (deps: BaselineDeps) =>
  guarded(deps, 'premium', async (memberId, query) => {
    const count = Number(query.months ?? 12);
    const spans = monthsEndingAt(today(), count);
    const rows = await deps.sql<{ year: number; month: number; type: LedgerType; amount: string }[]>`
      select extract(year from e.entry_date)::int as year, extract(month from e.entry_date)::int as month,
        e.type, sum(e.amount) as amount
      from account_entry e where e.member_id = ${memberId} and not e.pending and e.entry_date between ${spans[0]!.first}::date and ${spans.at(-1)!.last}::date
      group by 1, 2, e.type`;
    return {
      months: spans.map(({ year, month }) => {
        const ofMonth = rows.filter((row) => row.year === year && row.month === month);
        return { year, month, ...totalsOf(ofMonth.map((row) => ({ type: row.type, amount: moneyOf(row.amount) }))) };
      }),
    };
  });

/** The memos with the largest totals in the range (statistics.service.ts `topMerchants`). */
export const topMerchantsBaseline = (deps: BaselineDeps) =>
  guarded(deps, 'premium', async (memberId, query) => {
    const to = query.to ?? today();
    const from = query.from ?? monthOf(to).first;
    const type = query.type ?? 'EXPENSE';
    const limit = Number(query.limit ?? 10);
    const rows = await deps.sql<{ merchant: string; amount: string; count: number }[]>`
      with by_memo as materialized (
        select e.memo, sum(e.amount) as amount, count(*) as count
          from account_entry e
         where e.member_id = ${memberId} and not e.pending and e.entry_date between ${from}::date and ${to}::date and e.type = ${type} and e.memo is not null
         group by e.memo
      ), spelled as (
        select btrim(regexp_replace(memo, '[[:space:]]+', ' ', 'g')) as memo, amount, count from by_memo
      )
      select (array_agg(memo order by count desc, memo))[1] as merchant,
        sum(amount) as amount, sum(count)::int as count
        from spelled
       where memo <> ''
       group by lower(memo)
       order by sum(amount) desc, sum(count) desc, merchant
       limit ${limit}`;
    const items = rows.map((row) => ({ merchant: row.merchant, amount: moneyOf(row.amount), count: row.count }));
    return { from, to, type, items };
  });

interface BudgetRow {
  id: number;
  category: string;
  year: number;
  month: number;
  amount: number;
  spent: number;
}

/**
 * The month's budgets with what was spent, the month's expenses and the expected income: one statement
 * (budgets/monthly-budgets.ts `listMonth`; the leading blank line is where drizzle joins its fragments).
 */
export const monthBudgetsBaseline = (deps: BaselineDeps) =>
  guarded(deps, 'premium', async (memberId, query) => {
    const year = Number(query.year);
    const month = Number(query.month);
    const span = monthSpan(year, month);
    const [row] = await deps.sql<
      { items: BudgetRow[]; total_spent: string; expected_income: string | null }[]
    >`\n    \n    with spent as materialized (select e.category, sum(e.amount) as amount from account_entry e where e.member_id = ${memberId} and e.type = 'EXPENSE' and not e.pending
    and e.entry_date between ${span.first}::date and ${span.last}::date group by e.category),
    items as (
      select b.id, b.category, b.year, b.month, b.amount,
        coalesce((select sum(s.amount) from spent s
          where s.category in (select b.category
    union all
    select sub.name from category top
      join category sub on sub.member_id = top.member_id and sub.parent_id = top.id and sub.type = 'EXPENSE'
     where top.member_id = ${memberId} and top.type = 'EXPENSE' and top.parent_id is null
       and top.name = b.category)), 0)::bigint as spent
      from budget b
      where b.member_id = ${memberId} and b.year = ${year} and b.month = ${month} and true
    )
    select
      (select coalesce(json_agg(items order by items.category, items.id), '[]'::json) from items) as items,
      (select coalesce(sum(amount), 0)::bigint from spent) as total_spent,
      (select amount from budget_income
        where member_id = ${memberId} and year = ${year} and month = ${month}) as expected_income`;
    const items = (row?.items ?? []).map((item) => ({
      id: item.id,
      category: item.category,
      year: item.year,
      month: item.month,
      amount: Number(item.amount),
      spent: Number(item.spent),
    }));
    return {
      year,
      month,
      items,
      totalBudget: items.reduce((sum, item) => sum + item.amount, 0),
      totalSpent: Number(row?.total_spent ?? 0),
      expectedIncome: row?.expected_income == null ? null : Number(row.expected_income),
    };
  });
