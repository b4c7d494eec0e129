/** Membership shared by the api and the billing worker: both stores' clients, push authentication, plan rules, sessions. */

export * from './app-store/apple-root.js';
export * from './app-store/facts.js';
export * from './app-store/gateway.js';
export * from './app-store/notifications.js';
export * from './app-store/sync.js';
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
