import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index';

export type Schema = typeof schema;

/** The drizzle database over postgres.js with the full schema (`db.query.*` works). */
export type Database = PostgresJsDatabase<Schema>;

/** The handle a `db.transaction(async (tx) => …)` callback receives. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Either the database or an open transaction: what a service method that may join a transaction accepts. */
export type DbOrTx = Database | Transaction;

export interface CreateDbOptions {
  /** Pool size (default 10). */
  max?: number;
  /** Seconds an idle connection is kept (default 30). */
  idleTimeout?: number;
  /** Seconds to wait for a connection (default 10). */
  connectTimeout?: number;
  /** Reported as `application_name` to PostgreSQL. */
  applicationName?: string;
  /** Log every query through drizzle's default logger. */
  logQueries?: boolean;
  /** Prepared statements (default true; turn off behind a transaction-mode pooler). */
  prepare?: boolean;
}

export interface DbHandle {
  db: Database;
  /** The underlying postgres.js client (for raw SQL, LISTEN, health checks). */
  sql: postgres.Sql;
  /** Closes the pool, waiting at most `timeoutSeconds` (default 5) for running queries. */
  close: (timeoutSeconds?: number) => Promise<void>;
}

type Callback = (client: unknown) => unknown;

/**
 * The postgres.js client as drizzle should see it: every query prepared (drizzle asks postgres.js for an
 * unprepared query unless `.prepare()` is called, which costs a second round trip and a parse and plan on
 * every execution). Transactions and savepoints hand their callbacks a client wrapped the same way.
 * postgres.js keeps prepared statements per connection, and connections are recycled (`max_lifetime`).
 */
function alwaysPrepared<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'unsafe') {
        return (query: string, params?: unknown[], options?: object) =>
          value.call(target, query, params, { ...options, prepare: true });
      }
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) => {
          const callback = args.pop() as Callback;
          return value.call(target, ...args, (inner: object) => callback(alwaysPrepared(inner)));
        };
      }
      return value.bind(target);
    },
  });
}

export function createDb(url: string, options: CreateDbOptions = {}): DbHandle {
  const sql = postgres(url, {
    max: options.max ?? 10,
    idle_timeout: options.idleTimeout ?? 30,
    connect_timeout: options.connectTimeout ?? 10,
    prepare: options.prepare ?? true,
    onnotice: () => {},
    ...(options.applicationName ? { connection: { application_name: options.applicationName } } : {}),
  });
  const prepare = options.prepare ?? true;
  const db = drizzle(prepare ? alwaysPrepared(sql) : sql, { schema, logger: options.logQueries ?? false });
  return {
    db,
    sql,
    close: (timeoutSeconds = 5) => sql.end({ timeout: timeoutSeconds }),
  };
}
