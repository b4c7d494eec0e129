import type { Clock } from '@nestegg/domain';
import { dateIn } from '@nestegg/domain';
import { toBudgetIncomeRecord, toBudgetRecord, toOnetimeBudgetRecord } from '../budgets/index.js';
import { toQuickEntryResponse } from '../quick-entries/index.js';
import { toRecurring } from '../recurrings/index.js';
import type { AccountNumberCipher } from '../wallets/index.js';
import { toWallet } from '../wallets/index.js';
import type { SyncRenderers } from './changes.service.js';

export interface SyncRendererDeps {
  accountNumbers: AccountNumberCipher;
  clock: Clock;
  /** `APP_TIMEZONE`: the day a recurring's `nextDate` is counted from. */
  timeZone: string;
}

/** Each domain's own view, so the delta-sync feed sends records exactly as their routes do (entries: L35). */
export function syncRenderers({ accountNumbers, clock, timeZone }: SyncRendererDeps): SyncRenderers {
  return {
    wallets: (rows) => rows.map((row) => toWallet(row, accountNumbers)),
    categories: (rows) =>
      rows.map(({ id, name, type, parentId, sortOrder }) => ({ id, name, type, parentId, sortOrder })),
    tags: (rows) => rows.map(({ id, name, sortOrder }) => ({ id, name, sortOrder })),
    recurrings: (rows) => {
      const today = dateIn(timeZone, clock.now());
      return rows.map((row) => toRecurring(row, today));
    },
    quickEntries: (rows) => rows.map(toQuickEntryResponse),
    budgets: (rows) => rows.map(toBudgetRecord),
    onetimeBudgets: (rows) => rows.map(toOnetimeBudgetRecord),
    budgetIncomes: (rows) => rows.map(toBudgetIncomeRecord),
  };
}
