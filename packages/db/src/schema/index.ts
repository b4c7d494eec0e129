export { type LedgerType, ledgerType } from './_common';
export * from './billing';
export * from './board';
export * from './fx';
export * from './imports';
export * from './investments';
export * from './ledger';
export * from './members';
export * from './sync';
