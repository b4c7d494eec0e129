/** The environment model shared by the api and the billing worker. */
export * from './fragments.js';
export * from './groups.js';
export * from './load.js';
export * from './validators.js';
