import type { Db as JobEngineDb } from 'pg-boss';
import postgres from 'postgres';
import { cappedBackoff, lifetimeBetween } from './availability';
import { driverHostOptions } from './database-url';

/**
 * The job engine (pg-boss) on postgres.js instead of its own node-postgres pool, which knows one host only: given
 * this `db`, its statements and its LISTEN follow `DATABASE_URL` like the app's own pool, several hosts and
 * target_session_attrs included, so after a failover the engine reaches the promoted standby without a restart
 * (decision FO33). A pool of its own (`max`), as before: a job holding the app's connections in a transaction never
 * waits for the engine.
 */
export interface JobEngineDatabase {
  /** Pass as pg-boss's `db` option. */
  db: JobEngineDb;
  /** The postgres.js client under it. */
  sql: postgres.Sql;
  /** Closes the pool (pg-boss does not close a `db` it was given). */
  close(timeoutSeconds?: number): Promise<void>;
}

export interface JobEngineDatabaseOptions {
  max: number;
  applicationName?: string;
  /** Seconds, as `createDb`'s options. */
  connectTimeout?: number;
  idleTimeout?: number;
  maxLifetime?: number;
  reconnectBackoffMaxSeconds?: number;
}

/** A text that opens a transaction block itself. */
const OPENS_TRANSACTION = /^\s*begin\b/i;

/** JSON as node-postgres sends it: text given as it is (pg-boss stringifies its own), anything else stringified. */
const JSON_AS_NODE_POSTGRES = {
  to: 3802,
  from: [114, 3802],
  serialize: (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value)),
  parse: (text: string) => JSON.parse(text) as unknown,
};

/**
 * pg-boss's statements through postgres.js, with node-postgres's conventions where the two differ: `undefined`
 * parameters are null, JSON text is not encoded twice. Several statements in one text (its migrations, its locked
 * plans) run as one simple query on one connection, as on node-postgres.
 */
export function openJobEngineDatabase(url: string, options: JobEngineDatabaseOptions): JobEngineDatabase {
  const sql = postgres(url, {
    ...(driverHostOptions(url) as object),
    max: options.max,
    prepare: false,
    onnotice: () => {},
    transform: { undefined: null },
    types: { json: JSON_AS_NODE_POSTGRES },
    ...(options.connectTimeout ? { connect_timeout: options.connectTimeout } : {}),
    ...(options.idleTimeout ? { idle_timeout: options.idleTimeout } : {}),
    ...(options.maxLifetime ? { max_lifetime: lifetimeBetween(options.maxLifetime) } : {}),
    ...(options.reconnectBackoffMaxSeconds ? { backoff: cappedBackoff(options.reconnectBackoffMaxSeconds) } : {}),
    connection: { ...(options.applicationName ? { application_name: options.applicationName } : {}) },
  });
  const db: JobEngineDb = {
    async executeSql(text, values) {
      const parameters = (values ?? []) as postgres.ParameterOrJSON<never>[];
      if (!OPENS_TRANSACTION.test(text)) return { rows: await sql.unsafe(text, parameters) };
      // `BEGIN; …; COMMIT;` in one text (its locked plans): on a connection of its own, which postgres.js requires of
      // a transaction in a pool; rolled back if a statement failed, so the connection goes back outside any block.
      const reserved = await sql.reserve();
      try {
        return { rows: await reserved.unsafe(text, parameters) };
      } catch (error) {
        await reserved.unsafe('rollback').catch(() => {});
        throw error;
      } finally {
        reserved.release();
      }
    },
    // LISTEN on a connection of its own, established again on whichever host is writable after the connection
    // closes; `onReconnect` (the engine fetches at once, for wake-ups missed meanwhile) after each.
    async listen(channel, onNotification, onReconnect) {
      const listening = await sql.listen(channel, (payload) => onNotification(payload), onReconnect);
      return { close: () => listening.unlisten() };
    },
  };
  return { db, sql, close: (timeoutSeconds = 5) => sql.end({ timeout: timeoutSeconds }) };
}
