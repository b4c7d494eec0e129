/** `@nestegg/contract/auth`: the auth area's routes and schemas, plus the client essentials. */
export * from '../auth.js';
export * from '../essentials.js';
