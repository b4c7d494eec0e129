import { AsyncLocalStorage } from 'node:async_hooks';
import { drizzle } from 'drizzle-orm/postgres-js';
import type { Database } from './client';
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

/**
 * A database whose every statement goes to the read target in force when it runs (`runWithReadTarget`), else to
 * `primary`. Built once: prepared statements and `rawSelect`s made on it follow the target of each execution, each
 * run on the chosen pool's own client (its gate, its prepared statements, its tracing).
 */
export function routedReader(primary: Database): Database {
  const route = () => targets.getStore()?.$client ?? primary.$client;
  const client = new Proxy(primary.$client, {
    get(_target, property) {
      const current = route();
      const value: unknown = Reflect.get(current, property);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
  return drizzle(client, { schema }) as Database;
}
