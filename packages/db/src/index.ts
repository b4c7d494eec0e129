export * from './schema/index';
export * as schema from './schema/index';
export { createDb, type CreateDbOptions, type Database, type DbHandle, type DbOrTx, type Schema, type Transaction } from './client';
