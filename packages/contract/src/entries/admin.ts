/** `@nestegg/contract/admin`: the admin area's routes and schemas, plus the client essentials. */
export * from '../admin.js';
export * from '../essentials.js';
export * from '../member.js';
