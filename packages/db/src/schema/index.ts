export { ledgerType, type LedgerType } from './_common';
export * from './members';
export * from './ledger';
export * from './investments';
export * from './board';
export * from './billing';
