import { type Tracer, trace } from '@opentelemetry/api';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { ConnectionGate, cappedBackoff, gatedClient, lifetimeBetween } from './availability';
import { activeCommitHook, type CommitHook, mayWrite } from './commit-hook';
import { type DatabaseHost, driverHostOptions } from './database-url';
import { inShape, lazyQuery, type PendingQuery } from './lazy-query';
import * as schema from './schema/index';
import { tracedQuery } from './tracing';

export type Schema = typeof schema;

/** The drizzle database over postgres.js with the full schema (`db.query.*` works), and its client. */
export type Database = PostgresJsDatabase<Schema> & { $client: postgres.Sql };

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
  /** Prepared statements (default true; `pooler: 'transaction'` turns them off). */
  prepare?: boolean;
  /**
   * `transaction`: the pool's URL is a pooler in transaction mode (PgBouncer), which hands a server connection to
   * another client after each transaction (decisions DB13, DB15): statements are unnamed (no `prepare`), and the
   * statement timeout is set with `SET LOCAL` in each transaction instead of as a connection parameter, which the
   * pooler refuses and which would outlive the client's use of the server connection.
   */
  pooler?: 'none' | 'transaction';
  /**
   * PostgreSQL itself, for LISTEN (`DbHandle.listener`) when `url` is a pooler's (decision DB14); default: `url`.
   */
  directUrl?: string;
  /**
   * Seconds a connection lives before it is replaced; each connection draws its own lifetime between this
   * and twice this, so connections opened together are not replaced together (default: 30–60 min).
   */
  maxLifetime?: number;
  /** Server-side `statement_timeout` of every connection, in ms (default: none). */
  statementTimeoutMs?: number;
  /**
   * Longest wait for a pooled connection, in ms: a statement or transaction still waiting then fails with
   * `DatabaseAcquireTimeoutError` without having run (default: none, the driver's unbounded queue).
   */
  acquireTimeoutMs?: number;
  /** Cap of the reconnect backoff after failed connection attempts, in seconds (default: the driver's 20). */
  reconnectBackoffMaxSeconds?: number;
  /**
   * A span per statement run through drizzle (decision O12); unset (tracing off), statements are not
   * wrapped at all.
   */
  tracer?: Tracer;
  /**
   * Connect to this one host of the URL's list, whatever it is (a primary or a standby: `target_session_attrs=any`):
   * a read replica's pool of `DATABASE_READ_URL`, one per host (decision DB21).
   */
  onlyHost?: DatabaseHost;
}

export interface DbHandle {
  db: Database;
  /** The underlying postgres.js client (for raw SQL, NOTIFY, health checks). */
  sql: postgres.Sql;
  /**
   * The client to LISTEN on: `sql` itself, or with `directUrl` a client of its own on PostgreSQL, whose only
   * connection is the one `listen` opens (a transaction pooler cannot hold a LISTEN, decision DB14).
   */
  listener: postgres.Sql;
  /** Closes the pool, waiting at most `timeoutSeconds` (default 5) for running queries. */
  close: (timeoutSeconds?: number) => Promise<void>;
  /** What bounds the wait for a connection (with `acquireTimeoutMs`): its use and waits, for metrics. */
  gate: ConnectionGate | null;
}

type Callback = (client: unknown) => unknown;

/**
 * The postgres.js client as drizzle should see it: every query prepared (drizzle asks postgres.js for an
 * unprepared query unless `.prepare()` is called, which costs a second round trip and a parse and plan on
 * every execution). Transactions and savepoints hand their callbacks a client wrapped the same way.
 * postgres.js keeps prepared statements per connection, and connections are recycled (`max_lifetime`).
 *
 * On the root client it also honours an active commit hook (`commit-hook.ts`): the hook runs last in
 * every transaction begun while it is active, and an auto-commit write is run in a transaction of its own
 * so that the hook commits with it.
 */
function driverClient<T extends object>(
  client: T,
  prepare: boolean,
  root: boolean,
  tracer?: Tracer,
  transactionSetup?: string,
): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'unsafe') {
        return (query: string, params?: unknown[], options?: object) => {
          // Behind a transaction pooler every statement is unnamed, even one that asks to be prepared (`rawSelect`).
          const queryOptions = { ...options, prepare };
          const hook = root ? activeCommitHook() : undefined;
          const create = () =>
            hook && mayWrite(query)
              ? autoCommitWithHook(target as unknown as postgres.Sql, hook, query, params, queryOptions)
              : value.call(target, query, params, queryOptions);
          // Inside a sampled request or job only: start-up checks, listeners and the like would each make a trace,
          // and under an unsampled one the span would record nothing (decision O15).
          return tracer && trace.getActiveSpan()?.isRecording() ? tracedQuery(tracer, query, create) : create();
        };
      }
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) => {
          const callback = args.pop() as Callback;
          const hook = root && property === 'begin' ? activeCommitHook() : undefined;
          const setup = root && property === 'begin' ? transactionSetup : undefined;
          const wrap = (inner: object) => driverClient(inner, prepare, false, tracer);
          if (!hook && !setup) return value.call(target, ...args, (inner: object) => callback(wrap(inner)));
          return value.call(target, ...args, async (inner: postgres.TransactionSql) => {
            // The transaction's own settings first, sent ahead of the callback's statements on the same connection
            // (no round trip of its own); a failure fails the transaction.
            const settings = setup ? inner.unsafe(setup) : undefined;
            const returned = callback(wrap(inner));
            const [result] = await Promise.all([Array.isArray(returned) ? Promise.all(returned) : returned, settings]);
            await hook?.beforeCommit(inner);
            return result;
          });
        };
      }
      return value.bind(target);
    },
  });
}

/**
 * A lone write while a commit hook is active: run in a transaction that ends with the hook. Answers what
 * the wrappers use of a postgres.js pending query: awaiting it, after `.values()` or `.raw()` (asked before it
 * is awaited; the transaction begins when it is).
 */
function autoCommitWithHook(
  sql: postgres.Sql,
  hook: CommitHook,
  query: string,
  params: unknown[] | undefined,
  options: object | undefined,
): PendingQuery {
  return lazyQuery((shape) =>
    sql.begin(async (tx) => {
      const pending = tx.unsafe(query, params as postgres.ParameterOrJSON<never>[], options);
      const rows = await inShape(pending as unknown as PendingQuery, shape);
      await hook.beforeCommit(tx);
      return rows;
    }),
  );
}

/** `url` without its `target_session_attrs` parameter. */
function withoutSessionAttrs(url: string): string {
  return url.replace(/([?&])target_session_attrs=[^&#]*(&?)/, (_match, lead: string, tail: string) =>
    tail ? lead : '',
  );
}

/**
 * Opens the pool on `url`, one host or several (`postgres://u@h1,h2/db`): with several, a connection is opened on the
 * first host of the list that is writable (`target_session_attrs`, read-write unless the URL says primary), and a new
 * one tries them again, so after a failover the pool reaches the promoted standby by itself (decision FO33). Throws
 * `DatabaseUrlError` for a URL it cannot use.
 */
export function createDb(url: string, options: CreateDbOptions = {}): DbHandle {
  const behindPooler = options.pooler === 'transaction';
  const prepare = behindPooler ? false : (options.prepare ?? true);
  const statementTimeoutMs = options.statementTimeoutMs ? Math.trunc(options.statementTimeoutMs) : undefined;
  const connectionOptions = {
    idle_timeout: options.idleTimeout ?? 30,
    connect_timeout: options.connectTimeout ?? 10,
    onnotice: () => {},
    ...(options.maxLifetime ? { max_lifetime: lifetimeBetween(options.maxLifetime) } : {}),
    ...(options.reconnectBackoffMaxSeconds ? { backoff: cappedBackoff(options.reconnectBackoffMaxSeconds) } : {}),
  };
  const applicationName = options.applicationName ? { application_name: options.applicationName } : {};
  // One host of the list, whatever it is: the URL's attributes are the caller's to apply (postgres.js knows no `any`).
  const sql = postgres(options.onlyHost ? withoutSessionAttrs(url) : url, {
    // Host arrays: postgres.js takes them (its types say one host).
    ...((options.onlyHost
      ? { host: [options.onlyHost.host], port: [options.onlyHost.port] }
      : driverHostOptions(url)) as object),
    ...connectionOptions,
    max: options.max ?? 10,
    prepare,
    connection: {
      ...applicationName,
      // A connection parameter lives as long as the server connection: behind a transaction pooler, SET LOCAL instead.
      ...(statementTimeoutMs && !behindPooler ? { statement_timeout: statementTimeoutMs } : {}),
    },
  });
  const transactionSetup =
    statementTimeoutMs && behindPooler ? `set local statement_timeout = ${statementTimeoutMs}` : undefined;
  // LISTEN's connection of its own, on PostgreSQL itself: with the session's settings, as the pool's are not.
  const listener =
    options.directUrl && options.directUrl !== url
      ? postgres(options.directUrl, {
          ...(driverHostOptions(options.directUrl) as object),
          ...connectionOptions,
          max: 1,
          connection: {
            ...applicationName,
            ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
          },
        })
      : sql;
  const gate = options.acquireTimeoutMs ? new ConnectionGate(options.max ?? 10, options.acquireTimeoutMs) : null;
  const client = driverClient(sql, prepare, true, options.tracer, transactionSetup);
  const db = drizzle(gate ? gatedClient(client, gate) : client, { schema, logger: options.logQueries ?? false });
  return {
    db,
    sql,
    listener,
    gate,
    close: async (timeoutSeconds = 5) => {
      await Promise.all([
        sql.end({ timeout: timeoutSeconds }),
        listener === sql ? undefined : listener.end({ timeout: timeoutSeconds }),
      ]);
    },
  };
}
