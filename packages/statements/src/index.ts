/**
 * Card and bank statement files read into a table, a proposed column mapping and normalised ledger lines.
 * Pure: no I/O but the bytes given, no clock, no randomness.
 */

export { type Amount, parseAmount } from './amounts.js';
export { inferDateOrder } from './dates.js';
export { StatementError, type StatementErrorCode } from './errors.js';
export { proposeMapping } from './mapping.js';
export { LOCAL_CURRENCY, normalizeRows } from './normalize.js';
export { DEFAULT_LIMITS, readStatement } from './read.js';
export type * from './types.js';
