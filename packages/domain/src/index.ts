/** Pure ledger rules shared by the api and the billing worker. */

export * from './calendar.js';
export * from './clock.js';
export * from './credit-line.js';
export * from './investments.js';
export * from './loan.js';
export * from './periods.js';
export * from './recurrence.js';
