import type {
  LedgerType,
  MonthlyStats,
  StatsTrend,
  TopMerchants,
  TopMerchantsQuery,
  YearlyStats,
} from '@nestegg/contract';
import type { Database } from '@nestegg/db';
import { type Clock, dateIn, monthOf, monthSpan, monthsEndingAt } from '@nestegg/domain';
import { type SQL, sql } from 'drizzle-orm';
import { moneyOf } from './money.js';
import { byCategory, byTopCategory, type CategoryRow, totalsOf } from './rollup.js';

export interface StatisticsDeps {
  /** Every statistic is a read: a replica serves them once it has replayed the member's last write (decision DB20). */
  reader: Database;
  clock: Clock;
  /** `APP_TIMEZONE`: whose calendar decides "this month" and "today". */
  timeZone: string;
}

type GroupedRow = {
  month: number;
  type: LedgerType;
  category: string | null;
  parent_category: string | null;
  amount: string;
  count: number;
};

/** Confirmed (not pending) entries of the member dated in `first`..`last`, over `account_entry e`. */
function confirmedBetween(memberId: number, first: string, last: string): SQL {
  return sql`e.member_id = ${memberId} and not e.pending and e.entry_date between ${first}::date and ${last}::date`;
}

/**
 * Sums and counts per month, type and category in the range, each category with its top-level parent
 * (entries name categories; a name the member no longer has gets no parent). One statement.
 */
export function groupedByCategory(memberId: number, first: string, last: string): SQL {
  return sql`
    with totals as (
      select extract(month from e.entry_date)::int as month, e.type, e.category,
        sum(e.amount) as amount, count(*)::int as count
      from account_entry e where ${confirmedBetween(memberId, first, last)}
      group by 1, e.type, e.category
    )
    select t.month, t.type, t.category, p.name as parent_category, t.amount, t.count
      from totals t
      left join category c on c.member_id = ${memberId} and c.type = t.type and c.name = t.category
      left join category p on p.member_id = ${memberId} and p.id = c.parent_id`;
}

/** Income and expense per month of the range (`first`..`last`, whole months). */
export function trendStatement(memberId: number, first: string, last: string): SQL {
  return sql`
      select extract(year from e.entry_date)::int as year, extract(month from e.entry_date)::int as month,
        e.type, sum(e.amount) as amount
      from account_entry e where ${confirmedBetween(memberId, first, last)}
      group by 1, 2, e.type`;
}

/**
 * The memos of one type with the largest totals in `from`..`to`. Entries are grouped by their memo as stored
 * first (materialized: the blank-memo filter must not be pushed into the scan), so the normalisation runs once
 * per distinct memo, not once per entry.
 */
export function topMerchantsStatement(
  memberId: number,
  query: { from: string; to: string; type: LedgerType; limit: number },
): SQL {
  return sql`
      with by_memo as materialized (
        select e.memo, sum(e.amount) as amount, count(*) as count
          from account_entry e
         where ${confirmedBetween(memberId, query.from, query.to)} and e.type = ${query.type} and e.memo is not null
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
       limit ${query.limit}`;
}

const toCategoryRow = (row: GroupedRow): CategoryRow => ({
  type: row.type,
  category: row.category,
  parentCategory: row.parent_category,
  amount: moneyOf(row.amount),
  count: row.count,
});

/**
 * Statistics (premium) over confirmed entries: monthly and yearly totals by category and type, the
 * monthly trend, and top merchants. Each answer is one statement; sums come from the database, the
 * roll-ups (per month, per top-level category) from its few grouped rows.
 */
export class StatisticsService {
  constructor(readonly deps: StatisticsDeps) {}

  async monthly(memberId: number, year: number, month: number): Promise<MonthlyStats> {
    const span = monthSpan(year, month);
    const rows = (await this.grouped(memberId, span.first, span.last)).map(toCategoryRow);
    return { year, month, ...totalsOf(rows), byCategory: byCategory(rows), byTopCategory: byTopCategory(rows) };
  }

  async yearly(memberId: number, year: number): Promise<YearlyStats> {
    const grouped = await this.grouped(memberId, monthSpan(year, 1).first, monthSpan(year, 12).last);
    const rows = grouped.map(toCategoryRow);
    const months = Array.from({ length: 12 }, (_, index) => ({
      month: index + 1,
      ...totalsOf(rows.filter((_, at) => grouped[at]!.month === index + 1)),
    }));
    return { year, ...totalsOf(rows), months, byCategory: byCategory(rows), byTopCategory: byTopCategory(rows) };
  }

  /** Income and expense of the last `count` months (the current one in the service time zone included). */
  async trend(memberId: number, count: number): Promise<StatsTrend> {
    const spans = monthsEndingAt(this.today(), count);
    const rows = await this.deps.reader.execute<{ year: number; month: number; type: LedgerType; amount: string }>(
      trendStatement(memberId, spans[0]!.first, spans.at(-1)!.last),
    );
    const months = spans.map(({ year, month }) => {
      const ofMonth = rows.filter((row) => row.year === year && row.month === month);
      return { year, month, ...totalsOf(ofMonth.map((row) => ({ type: row.type, amount: moneyOf(row.amount) }))) };
    });
    return { months };
  }

  /**
   * The memos with the largest totals in the range. Memos are trimmed and their inner runs of white space
   * collapsed; memos equal up to case are one merchant, shown as most often written; blank memos are left out.
   */
  async topMerchants(memberId: number, query: TopMerchantsQuery): Promise<TopMerchants> {
    const to = query.to ?? this.today();
    const from = query.from ?? monthOf(to).first;
    const rows = await this.deps.reader.execute<{ merchant: string; amount: string; count: number }>(
      topMerchantsStatement(memberId, { ...query, from, to }),
    );
    const items = rows.map((row) => ({ merchant: row.merchant, amount: moneyOf(row.amount), count: row.count }));
    return { from, to, type: query.type, items };
  }

  private grouped(memberId: number, first: string, last: string) {
    return this.deps.reader.execute<GroupedRow>(groupedByCategory(memberId, first, last));
  }

  private today(): string {
    return dateIn(this.deps.timeZone, this.deps.clock.now());
  }
}
