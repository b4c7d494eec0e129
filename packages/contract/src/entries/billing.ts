/** `@nestegg/contract/billing`: the billing area's routes and schemas, plus the client essentials. */
export * from '../billing.js';
export * from '../essentials.js';
