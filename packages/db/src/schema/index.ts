export { ledgerType, type LedgerType } from './_common';
export * from './members';
