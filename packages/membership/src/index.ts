/** Membership shared by the api and the billing worker: the store client, push authentication, plan rules, sessions. */

export * from './config.js';
export * from './errors.js';
export * from './google-play/client.js';
export * from './google-play/inbox.js';
export * from './google-play/notifications.js';
export * from './google-play/push-auth.js';
export * from './google-play/types.js';
export * from './logger.js';
export * from './membership/sessions.js';
export * from './membership/settle.js';
export * from './membership/states.js';
export * from './membership/sync.js';
export * from './membership/withdrawal.js';
export * from './products.js';
