/** The ledger area (`/api/account/...`, `/api/fx/...`). */
import { backupContract } from './backup.js';
import { budgetsContract } from './budgets.js';
import { categoriesContract, tagsContract } from './categories.js';
import { entriesContract, quickEntriesContract } from './entries.js';
import { fxContract } from './fx.js';
import { investmentsContract } from './investments.js';
import { receiptsContract } from './receipts.js';
import { recurringsContract } from './recurrings.js';
import { statsContract } from './stats.js';
import { walletsContract } from './wallets.js';

export * from './backup.js';
export * from './budgets.js';
export * from './categories.js';
export * from './entries.js';
export * from './fx.js';
export * from './investments.js';
export * from './receipts.js';
export * from './recurrings.js';
export * from './shared.js';
export * from './stats.js';
export * from './wallets.js';

/** The ledger routers; annotated so declaration files name each part instead of repeating it. */
export const ledgerContract: {
  entries: typeof entriesContract;
  quickEntries: typeof quickEntriesContract;
  wallets: typeof walletsContract;
  budgets: typeof budgetsContract;
  categories: typeof categoriesContract;
  tags: typeof tagsContract;
  recurrings: typeof recurringsContract;
  investments: typeof investmentsContract;
  stats: typeof statsContract;
  receipts: typeof receiptsContract;
  backup: typeof backupContract;
  fx: typeof fxContract;
} = {
  entries: entriesContract,
  quickEntries: quickEntriesContract,
  wallets: walletsContract,
  budgets: budgetsContract,
  categories: categoriesContract,
  tags: tagsContract,
  recurrings: recurringsContract,
  investments: investmentsContract,
  stats: statsContract,
  receipts: receiptsContract,
  backup: backupContract,
  fx: fxContract,
};
