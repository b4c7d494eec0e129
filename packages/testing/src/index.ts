export * from './env.js';
export * from './fake-server.js';
export * from './fixtures.js';
export * from './ports.js';
export * from './postgres.js';
export * from './private-postgres.js';
export * from './redis.js';
export * from './redis-server.js';
