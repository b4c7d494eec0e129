export {
  ConnectionGate,
  DatabaseAcquireTimeoutError,
  DatabaseUnreachableError,
  isDatabaseUnavailable,
} from './availability';
export {
  type CreateDbOptions,
  createDb,
  type Database,
  type DbHandle,
  type DbOrTx,
  type Schema,
  type Transaction,
} from './client';
export { type CommitHook, runWithCommitHook, runWithoutCommitHook } from './commit-hook';
export { type RawSelect, rawSelect } from './raw-select';
export * from './schema/index';
export * as schema from './schema/index';
