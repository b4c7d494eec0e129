/** `@nestegg/contract/ledger`: the ledger area's routes and schemas, plus the client essentials. */
export * from '../essentials.js';
export * from '../ledger/index.js';
