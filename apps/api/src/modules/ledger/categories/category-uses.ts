import type { CategoryType } from '@nestegg/contract';
import type { DbOrTx } from '@nestegg/db';
import { sql } from 'drizzle-orm';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import { duplicateCategoryName } from './category-tree.js';

/**
 * Where a category is used. Entries, recurrings and quick entries name a category of their own type;
 * budgets and one-time budgets name an expense category (their `spent` counts expenses).
 */

const BUDGET_KEY = 'budget_member_category_year_month_uq';

/** The unique key a failed statement broke (drizzle keeps the driver error as `cause`). */
function constraintOf(error: unknown): string | undefined {
  const failed = error as { constraint_name?: unknown; cause?: { constraint_name?: unknown } } | null;
  const name = failed?.cause?.constraint_name ?? failed?.constraint_name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * Renames every use of the member's `type` category `from` to `to`, in one statement (call it in the
 * transaction that renames the category). Data-modifying CTEs all run to completion, read or not. A budget month that already has a budget of the new name
 * (left by a deleted category) refuses the rename with 409.
 */
export async function renameCategoryUses(
  tx: DbOrTx,
  memberId: number,
  type: CategoryType,
  from: string,
  to: string,
): Promise<void> {
  const named = sql`member_id = ${memberId} and category = ${from}`;
  const typed = sql`${named} and type = ${type}::ledger_type`;
  const budgeted = sql`${named} and ${type}::ledger_type = 'EXPENSE'`;
  try {
    await tx.execute(sql`
      with entries as (
        update account_entry set category = ${to}, updated_at = now() where ${typed}
      ), recurrings as (
        update recurring set category = ${to}, updated_at = now() where ${typed}
      ), quick_entries as (
        update quick_entry set category = ${to}, updated_at = now() where ${typed}
      ), budgets as (
        update budget set category = ${to}, updated_at = now() where ${budgeted}
      ), onetime_budgets as (
        update budget_onetime set category = ${to}, updated_at = now() where ${budgeted}
      )
      select 1`);
  } catch (error) {
    if (pgErrorCode(error) === UNIQUE_VIOLATION && constraintOf(error) === BUDGET_KEY) {
      throw duplicateCategoryName('A budget of this name already exists in a month this category has a budget.');
    }
    throw error;
  }
}

/** Whether any of the member's `type` categories called `names` is used (one statement). */
export async function isAnyCategoryUsed(
  tx: DbOrTx,
  memberId: number,
  type: CategoryType,
  names: string[],
): Promise<boolean> {
  const named = sql`member_id = ${memberId} and category in ${names}`;
  const typed = sql`${named} and type = ${type}::ledger_type`;
  const [row] = await tx.execute<{ used: boolean }>(sql`
    select exists (select 1 from account_entry where ${typed})
      or exists (select 1 from recurring where ${typed})
      or exists (select 1 from quick_entry where ${typed})
      or (${type}::ledger_type = 'EXPENSE' and (
        exists (select 1 from budget where ${named}) or exists (select 1 from budget_onetime where ${named})
      )) as used`);
  return row?.used === true;
}
