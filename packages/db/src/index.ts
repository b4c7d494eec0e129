export {
  type CreateDbOptions,
  createDb,
  type Database,
  type DbHandle,
  type DbOrTx,
  type Schema,
  type Transaction,
} from './client';
export * from './schema/index';
export * as schema from './schema/index';
