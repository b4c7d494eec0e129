import type { BudgetIncome, SetBudgetIncomeRequest } from '@nestegg/contract';
import type { DbOrTx } from '@nestegg/db';
import { sql } from 'drizzle-orm';

/** Expected income: one value per (member, year, month), kept by its unique key. */

export async function getIncome(db: DbOrTx, memberId: number, year: number, month: number): Promise<BudgetIncome> {
  const [row] = await db.execute<{ amount: string }>(sql`
    select amount from budget_income where member_id = ${memberId} and year = ${year} and month = ${month}`);
  return { year, month, amount: row ? Number(row.amount) : null };
}

/** Sets the month's expected income in one statement (an upsert); `null` removes it. */
export async function setIncome(db: DbOrTx, memberId: number, body: SetBudgetIncomeRequest): Promise<BudgetIncome> {
  const { year, month, amount } = body;
  if (amount === null) {
    await db.execute(sql`
      delete from budget_income where member_id = ${memberId} and year = ${year} and month = ${month}`);
  } else {
    await db.execute(sql`
      insert into budget_income (member_id, year, month, amount) values (${memberId}, ${year}, ${month}, ${amount})
      on conflict (member_id, year, month) do update set amount = excluded.amount, updated_at = now()`);
  }
  return { year, month, amount };
}
