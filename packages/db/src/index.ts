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
export {
  type DatabaseHost,
  type DatabaseUrl,
  DatabaseUrlError,
  databaseUrlProblem,
  parseDatabaseUrl,
  parseReadDatabaseUrl,
  type ReadDatabaseUrl,
  type ReadSessionAttrs,
  readDatabaseUrlProblem,
} from './database-url';
export { type JobEngineDatabase, openJobEngineDatabase } from './job-engine';
export { type RawSelect, rawSelect } from './raw-select';
export { activeReadTarget, routedReader, runWithReadTarget } from './read-routing';
export * from './schema/index';
export * as schema from './schema/index';
