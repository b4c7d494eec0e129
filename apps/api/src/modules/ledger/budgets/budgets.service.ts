import type {
  BudgetIncome,
  CopyBudgetsRequest,
  CreateBudgetRequest,
  CreateOnetimeBudgetRequest,
  MonthBudgets,
  SetBudgetIncomeRequest,
  UpdateBudgetRequest,
  UpdateOnetimeBudgetRequest,
} from '@nestegg/contract';
import type { Database } from '@nestegg/db';
import { getIncome, setIncome } from './budget-income.js';
import { copyMonth, createBudget, deleteBudget, listMonth, updateBudget } from './monthly-budgets.js';
import { createOnetime, deleteOnetime, listOnetime, updateOnetime } from './onetime-budgets.js';

/**
 * Budgets (premium): monthly budgets per expense category, one-time budgets over a date range, and the
 * expected income of a month. Every statement is scoped by the member; each answer's `spent` is computed
 * in a fixed number of statements whatever the number of budgets.
 */
export class BudgetsService {
  /** `reader`: where the lists and the income are read (a replica when the request's route allows it, decision DB20). */
  constructor(readonly deps: { db: Database; reader: Database }) {}

  listMonth(memberId: number, year: number, month: number): Promise<MonthBudgets> {
    return listMonth(this.deps.reader, memberId, year, month);
  }

  create(memberId: number, body: CreateBudgetRequest) {
    return createBudget(this.deps.db, memberId, body);
  }

  update(memberId: number, id: number, body: UpdateBudgetRequest) {
    return updateBudget(this.deps.db, memberId, id, body);
  }

  delete(memberId: number, id: number): Promise<void> {
    return deleteBudget(this.deps.db, memberId, id);
  }

  /** Copies a month's budgets to another month; returns how many. */
  copy(memberId: number, body: CopyBudgetsRequest): Promise<number> {
    return copyMonth(this.deps.db, memberId, body);
  }

  listOnetime(memberId: number, range: { from?: string; to?: string }) {
    return listOnetime(this.deps.reader, memberId, range);
  }

  createOnetime(memberId: number, body: CreateOnetimeBudgetRequest) {
    return createOnetime(this.deps.db, memberId, body);
  }

  updateOnetime(memberId: number, id: number, body: UpdateOnetimeBudgetRequest) {
    return updateOnetime(this.deps.db, memberId, id, body);
  }

  deleteOnetime(memberId: number, id: number): Promise<void> {
    return deleteOnetime(this.deps.db, memberId, id);
  }

  getIncome(memberId: number, year: number, month: number): Promise<BudgetIncome> {
    return getIncome(this.deps.reader, memberId, year, month);
  }

  setIncome(memberId: number, body: SetBudgetIncomeRequest): Promise<BudgetIncome> {
    return setIncome(this.deps.db, memberId, body);
  }
}
