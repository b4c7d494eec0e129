import type { BudgetIncomeRecord, BudgetRecord, OnetimeBudgetRecord } from '@nestegg/contract';
import type { Budget, BudgetIncome, BudgetOnetime } from '@nestegg/db';

/** A monthly budget as stored (the budget screens add what was spent; the sync sends it as is). */
export function toBudgetRecord(row: Budget): BudgetRecord {
  return { id: row.id, category: row.category, year: row.year, month: row.month, amount: row.amount };
}

export function toOnetimeBudgetRecord(row: BudgetOnetime): OnetimeBudgetRecord {
  return {
    id: row.id,
    name: row.name,
    amount: row.amount,
    startDate: row.startDate,
    endDate: row.endDate,
    category: row.category,
    memo: row.memo,
  };
}

export function toBudgetIncomeRecord(row: BudgetIncome): BudgetIncomeRecord {
  return { id: row.id, year: row.year, month: row.month, amount: row.amount };
}
