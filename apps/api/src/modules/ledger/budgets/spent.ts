import type { MonthSpan } from '@nestegg/domain';
import { type SQL, sql } from 'drizzle-orm';

/**
 * What a budget counts as spent: confirmed (not pending) EXPENSE entries of its category; a budget of a
 * top-level category also counts the entries of its sub-categories. Entries name their category, so the
 * names a budget counts are its own and, when it names a top-level expense category, those of its children.
 */

/** The category names a budget of `budgetCategory` (an SQL expression) counts, as a one-column subquery. */
export function countedCategoryNames(memberId: number, budgetCategory: SQL): SQL {
  return sql`select ${budgetCategory}
    union all
    select sub.name from category top
      join category sub on sub.member_id = top.member_id and sub.parent_id = top.id and sub.type = 'EXPENSE'
     where top.member_id = ${memberId} and top.type = 'EXPENSE' and top.parent_id is null
       and top.name = ${budgetCategory}`;
}

/** Whether the member has an EXPENSE category called `name` (an SQL boolean). */
export function isExpenseCategory(memberId: number, name: string): SQL {
  return sql`exists (select 1 from category
    where member_id = ${memberId} and type = 'EXPENSE' and name = ${name})`;
}

/** The confirmed expenses of a member in a date range (inclusive), as a filter on `account_entry` aliased `e`. */
export function confirmedExpensesBetween(memberId: number, first: SQL, last: SQL): SQL {
  return sql`e.member_id = ${memberId} and e.type = 'EXPENSE' and not e.pending
    and e.entry_date between ${first} and ${last}`;
}

/**
 * The month's confirmed expenses per category name (null included): the one grouped aggregate every
 * budget of the month reads.
 */
export function monthExpensesByCategory(memberId: number, month: MonthSpan): SQL {
  const filter = confirmedExpensesBetween(memberId, sql`${month.first}::date`, sql`${month.last}::date`);
  return sql`select e.category, sum(e.amount) as amount from account_entry e where ${filter} group by e.category`;
}

/** A one-time budget's spent (a scalar subquery over the row aliased `b`): its range, its category when set. */
export function onetimeSpent(memberId: number): SQL {
  const filter = confirmedExpensesBetween(memberId, sql`b.start_date`, sql`b.end_date`);
  return sql`(select coalesce(sum(e.amount), 0) from account_entry e
    where ${filter}
      and (b.category is null or e.category in (${countedCategoryNames(memberId, sql`b.category`)})))::bigint`;
}
