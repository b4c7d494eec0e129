import type {
  Budget,
  CopyBudgetsRequest,
  CreateBudgetRequest,
  MonthBudgets,
  UpdateBudgetRequest,
} from '@nestegg/contract';
import type { DbOrTx } from '@nestegg/db';
import { type MonthSpan, monthSpan } from '@nestegg/domain';
import { type SQL, sql } from 'drizzle-orm';
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors.js';
import { shareMemberCategories } from '../../../lib/locks.js';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import { countedCategoryNames, isExpenseCategory, monthExpensesByCategory } from './spent.js';

/**
 * Monthly budgets: one per (member, category name, year, month), the unique key deciding a duplicate.
 * Their `spent` comes from one grouped aggregate of the month's expenses, whatever the number of budgets.
 */

type BudgetRow = {
  id: number;
  category: string;
  year: number;
  month: number;
  amount: string | number;
  spent: string | number;
};

const toBudget = (row: BudgetRow): Budget => ({
  id: row.id,
  category: row.category,
  year: row.year,
  month: row.month,
  amount: Number(row.amount),
  spent: Number(row.spent),
});

export const unknownExpenseCategory = () =>
  new BadRequestError('UNKNOWN_CATEGORY', 'You have no EXPENSE category of this name: budgets count expenses.');

const duplicateBudget = () =>
  new ConflictError('DUPLICATE_BUDGET', 'This category already has a budget in this month.');

/** A second budget of the same category and month (the unique key) → 409 `DUPLICATE_BUDGET`. */
async function mapDuplicate<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof AppError) && pgErrorCode(error) === UNIQUE_VIOLATION) throw duplicateBudget();
    throw error;
  }
}

/**
 * The month's budgets matching `where` (over `budget b`), each with what was spent, as a query whose
 * `spent` CTE (materialized: computed once) is the month's expenses per category.
 */
function budgetsWithSpent(memberId: number, month: MonthSpan, where: SQL): SQL {
  return sql`
    with spent as materialized (${monthExpensesByCategory(memberId, month)}),
    items as (
      select b.id, b.category, b.year, b.month, b.amount,
        coalesce((select sum(s.amount) from spent s
          where s.category in (${countedCategoryNames(memberId, sql`b.category`)})), 0)::bigint as spent
      from budget b
      where b.member_id = ${memberId} and b.year = ${month.year} and b.month = ${month.month} and ${where}
    )`;
}

/** One budget with its spent, or a 404. */
async function budgetById(db: DbOrTx, memberId: number, id: number, month: MonthSpan): Promise<Budget> {
  const [row] = await db.execute<BudgetRow>(sql`${budgetsWithSpent(memberId, month, sql`b.id = ${id}`)}
    select * from items`);
  if (!row) throw new NotFoundError('budget');
  return toBudget(row);
}

/** The month's budgets as JSON, the month's total expenses and its expected income, as one row. */
export function listMonthStatement(memberId: number, year: number, month: number): SQL {
  return sql`
    ${budgetsWithSpent(memberId, monthSpan(year, month), sql`true`)}
    select
      (select coalesce(json_agg(items order by items.category, items.id), '[]'::json) from items) as items,
      (select coalesce(sum(amount), 0)::bigint from spent) as total_spent,
      (select amount from budget_income
        where member_id = ${memberId} and year = ${year} and month = ${month}) as expected_income`;
}

/** The budgets of a month by category name, with spent, the month's total expenses and expected income: one statement. */
export async function listMonth(db: DbOrTx, memberId: number, year: number, month: number): Promise<MonthBudgets> {
  const [row] = await db.execute<{ items: BudgetRow[]; total_spent: string; expected_income: string | null }>(
    listMonthStatement(memberId, year, month),
  );
  const items = (row?.items ?? []).map(toBudget);
  return {
    year,
    month,
    items,
    totalBudget: items.reduce((sum, item) => sum + item.amount, 0),
    totalSpent: Number(row?.total_spent ?? 0),
    expectedIncome: row?.expected_income == null ? null : Number(row.expected_income),
  };
}

/** Creates a budget of one of the member's expense categories (unknown → 400, second of the month → 409). */
export function createBudget(db: DbOrTx, memberId: number, body: CreateBudgetRequest): Promise<Budget> {
  return mapDuplicate(() =>
    db.transaction(async (tx) => {
      await shareMemberCategories(tx, memberId);
      const inserted = await tx.execute<{ id: number }>(sql`
        insert into budget (member_id, category, year, month, amount)
        select ${memberId}, ${body.category}, ${body.year}, ${body.month}, ${body.amount}
         where ${isExpenseCategory(memberId, body.category)}
        returning id`);
      if (inserted.length === 0) throw unknownExpenseCategory();
      return budgetById(tx, memberId, inserted[0]!.id, monthSpan(body.year, body.month));
    }),
  );
}

/** Changes a budget's category or amount; the same rules as create. */
export function updateBudget(db: DbOrTx, memberId: number, id: number, body: UpdateBudgetRequest): Promise<Budget> {
  const category = body.category ?? null;
  return mapDuplicate(() =>
    db.transaction(async (tx) => {
      if (category !== null) await shareMemberCategories(tx, memberId);
      const updated = await tx.execute<{ year: number; month: number }>(sql`
        update budget set
          category = coalesce(${category}::text, category),
          amount = coalesce(${body.amount ?? null}::bigint, amount),
          updated_at = now()
         where member_id = ${memberId} and id = ${id}
           and (${category}::text is null or ${isExpenseCategory(memberId, category ?? '')})
        returning year, month`);
      if (updated.length === 0) throw await whyNotUpdated(tx, memberId, id);
      const { year, month } = updated[0]!;
      return budgetById(tx, memberId, id, monthSpan(year, month));
    }),
  );
}

/** An update matched no row: the budget is not the member's (404) or the new category is unknown (400). */
async function whyNotUpdated(tx: DbOrTx, memberId: number, id: number): Promise<AppError> {
  const found = await tx.execute(sql`select 1 from budget where member_id = ${memberId} and id = ${id}`);
  return found.length === 0 ? new NotFoundError('budget') : unknownExpenseCategory();
}

export async function deleteBudget(db: DbOrTx, memberId: number, id: number): Promise<void> {
  const deleted = await db.execute(sql`delete from budget where member_id = ${memberId} and id = ${id} returning id`);
  if (deleted.length === 0) throw new NotFoundError('budget');
}

/**
 * Copies the budgets of one month to another in one statement: a category the target month already
 * budgets takes the source amount, the target's other budgets stay. Returns how many were copied.
 */
export function copyMonth(db: DbOrTx, memberId: number, body: CopyBudgetsRequest): Promise<number> {
  return db.transaction(async (tx) => {
    // The copies carry category names: a rename must see them or be seen by them.
    await shareMemberCategories(tx, memberId);
    const copied = await tx.execute(sql`
      insert into budget (member_id, category, year, month, amount)
      select member_id, category, ${body.toYear}, ${body.toMonth}, amount
        from budget where member_id = ${memberId} and year = ${body.fromYear} and month = ${body.fromMonth}
      on conflict (member_id, category, year, month)
        do update set amount = excluded.amount, updated_at = now()
      returning id`);
    return copied.length;
  });
}
