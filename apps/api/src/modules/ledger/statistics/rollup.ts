import type { CategoryTotal, LedgerType, TopCategoryTotal } from '@nestegg/contract';
import { moneyOf } from './money.js';

/** One grouped row of confirmed entries: a type and category (with its top-level parent) and their sums. */
export interface CategoryRow {
  type: LedgerType;
  category: string | null;
  parentCategory: string | null;
  amount: number;
  count: number;
}

export interface Totals {
  income: number;
  expense: number;
  balance: number;
}

/** Income, expense and their difference over the rows. */
export function totalsOf(rows: readonly Pick<CategoryRow, 'type' | 'amount'>[]): Totals {
  let income = 0;
  let expense = 0;
  for (const row of rows) {
    if (row.type === 'INCOME') income += row.amount;
    else expense += row.amount;
  }
  return { income: moneyOf(income), expense: moneyOf(expense), balance: moneyOf(income - expense) };
}

/** Largest amount first; ties by type (expense first), then by name (no category last). */
function byAmount(a: CategoryTotal | TopCategoryTotal, b: CategoryTotal | TopCategoryTotal): number {
  if (a.amount !== b.amount) return b.amount - a.amount;
  if (a.type !== b.type) return a.type === 'EXPENSE' ? -1 : 1;
  if (a.category === b.category) return 0;
  if (a.category === null) return 1;
  if (b.category === null) return -1;
  return a.category < b.category ? -1 : 1;
}

/** Sums rows sharing a key into one total each (amounts saturate, see `moneyOf`). */
function sumBy<T extends { amount: number; count: number }>(
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
  return [...sums.values()];
}

/** Per (type, category) as the entries name them, each with its top-level category. */
export function byCategory(rows: readonly CategoryRow[]): CategoryTotal[] {
  return sumBy(
    rows,
    (row) => JSON.stringify([row.type, row.category]),
    (row): CategoryTotal => ({
      category: row.category,
      parentCategory: row.parentCategory,
      type: row.type,
      amount: 0,
      count: 0,
    }),
  ).sort(byAmount);
}

/** Per (type, top-level category): a sub-category's entries count for its parent. */
export function byTopCategory(rows: readonly CategoryRow[]): TopCategoryTotal[] {
  const topOf = (row: CategoryRow) => row.parentCategory ?? row.category;
  return sumBy(
    rows,
    (row) => JSON.stringify([row.type, topOf(row)]),
    (row): TopCategoryTotal => ({ category: topOf(row), type: row.type, amount: 0, count: 0 }),
  ).sort(byAmount);
}
