/** The ledger area (`/api/account/...`, `/api/fx/...`). */
import { combineNamedSchemas, type NamedSchemas } from '../schema-names.js';
import { backupContract, backupNamedSchemas } from './backup.js';
import { budgetsContract, budgetsNamedSchemas } from './budgets.js';
import { categoriesContract, categoriesNamedSchemas, tagsContract } from './categories.js';
import { changesContract, changesNamedSchemas } from './changes.js';
import { entriesContract, entriesNamedSchemas, quickEntriesContract } from './entries.js';
import { fxContract, fxNamedSchemas } from './fx.js';
import { importsContract, importsNamedSchemas } from './imports.js';
import { investmentsContract, investmentsNamedSchemas } from './investments.js';
import { receiptsContract, receiptsNamedSchemas } from './receipts.js';
import { recurringsContract, recurringsNamedSchemas } from './recurrings.js';
import { statsContract, statsNamedSchemas } from './stats.js';
import { walletsContract, walletsNamedSchemas } from './wallets.js';

export * from './backup.js';
export * from './budgets.js';
export * from './categories.js';
export * from './changes.js';
export * from './entries.js';
export * from './fx.js';
export * from './imports.js';
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
  changes: typeof changesContract;
  imports: typeof importsContract;
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
  changes: changesContract,
  imports: importsContract,
};

/** Component names of the ledger area (see schema-names.ts). */
export const ledgerNamedSchemas: NamedSchemas = /* @__PURE__ */ combineNamedSchemas(
  entriesNamedSchemas,
  walletsNamedSchemas,
  budgetsNamedSchemas,
  categoriesNamedSchemas,
  recurringsNamedSchemas,
  investmentsNamedSchemas,
  statsNamedSchemas,
  receiptsNamedSchemas,
  backupNamedSchemas,
  fxNamedSchemas,
  changesNamedSchemas,
  importsNamedSchemas,
);
