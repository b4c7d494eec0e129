import { AsyncLocalStorage } from 'node:async_hooks';
import type postgres from 'postgres';

/**
 * Work that must commit with every write made while it is active: it runs as the last statement of each
 * transaction opened through the database handle, and each auto-commit write (a lone insert, update,
 * delete or data-modifying `with`) is wrapped in a transaction so that it runs with it. Throwing rolls the
 * transaction back. The api ties a request's `Idempotency-Key` to its writes this way (decision FO20).
 */
export interface CommitHook {
  /** Checked at each statement: false once the work it guards is over (later writes are not tied to it). */
  readonly active: boolean;
  beforeCommit(sql: postgres.TransactionSql): Promise<void>;
}

const hooks = new AsyncLocalStorage<CommitHook | undefined>();

/** Runs `fn` (and everything it starts) with `hook` active on the database handles of `createDb`. */
export function runWithCommitHook<T>(hook: CommitHook, fn: () => T): T {
  return hooks.run(hook, fn);
}

/** Runs `fn` without the surrounding commit hook (the hook's own bookkeeping must not trigger it). */
export function runWithoutCommitHook<T>(fn: () => T): T {
  return hooks.run(undefined, fn);
}

/** The hook in force here, if any and still active. */
export function activeCommitHook(): CommitHook | undefined {
  const hook = hooks.getStore();
  return hook?.active ? hook : undefined;
}

const WRITE_STATEMENT = /^\s*(insert|update|delete|merge)\b/i;
const WITH_STATEMENT = /^\s*with\b/i;
const WRITE_KEYWORD = /\b(insert|update|delete|merge)\b/i;

/**
 * Whether an auto-commit statement may write. Errs towards yes for `with` (a read CTE naming one of the
 * keywords is treated as a write: the hook then runs needlessly, which is safe).
 */
export function mayWrite(query: string): boolean {
  return WRITE_STATEMENT.test(query) || (WITH_STATEMENT.test(query) && WRITE_KEYWORD.test(query));
}
