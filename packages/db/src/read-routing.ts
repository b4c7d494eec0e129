import { AsyncLocalStorage } from 'node:async_hooks';
import { drizzle } from 'drizzle-orm/postgres-js';
import { isDatabaseUnavailable } from './availability';
import type { Database } from './client';
import { inShape, lazyQuery, type PendingQuery } from './lazy-query';
import * as schema from './schema/index';

/**
 * Where the statements of a reader go (decision DB20): a request that may read from a replica runs with that
 * replica's database as its read target; everywhere else (no target, or outside any request) the reader is the
 * primary. Services keep two handles: `db` for what must see the primary (writes, transactions, anything a write
 * follows), `reader` for the reads a replica may serve; the request decides whether it may.
 */
const targets = new AsyncLocalStorage<Database | undefined>();

/** Runs `fn` (and everything it starts) with the readers' statements sent to `target` (undefined: the primary). */
export function runWithReadTarget<T>(target: Database | undefined, fn: () => T): T {
  return targets.run(target, fn);
}

/** The read target in force here; undefined means the primary. */
export function activeReadTarget(): Database | undefined {
  return targets.getStore();
}

/** A replica's statement may be run again on the primary: it could not be run there, or recovery cancelled it. */
function worthRetryingOnPrimary(error: unknown): boolean {
  return isDatabaseUnavailable(error) || (error as { code?: unknown } | null)?.code === '40001';
}

/**
 * A database whose every statement goes to the read target in force when it runs (`runWithReadTarget`), else to
 * `primary`. Built once: prepared statements and `rawSelect`s made on it follow the target of each execution, each
 * run on the chosen pool's own client (its gate, its prepared statements, its tracing). A statement a replica could
 * not run (unreachable, closed, out of connections, or cancelled by a conflict with recovery: 40001) runs again on
 * the primary, and `onReplicaFailure` is told (decision DB25): a read never fails because a replica did.
 */
export function routedReader(
  primary: Database,
  onReplicaFailure: (replica: Database, error: unknown) => void = () => {},
): Database {
  const client = new Proxy(primary.$client, {
    get(_target, property) {
      const replica = targets.getStore();
      const current = replica?.$client ?? primary.$client;
      const value: unknown = Reflect.get(current, property);
      if (typeof value !== 'function') return value;
      if (!replica || property !== 'unsafe') return value.bind(current);
      return (...args: unknown[]) =>
        lazyQuery(async (shape) => {
          try {
            return await inShape(value.apply(current, args) as PendingQuery, shape);
          } catch (error) {
            if (!worthRetryingOnPrimary(error)) throw error;
            onReplicaFailure(replica, error);
            const again = primary.$client.unsafe as unknown as (...a: unknown[]) => PendingQuery;
            return inShape(again.apply(primary.$client, args), shape);
          }
        });
    },
  });
  return drizzle(client, { schema }) as Database;
}
