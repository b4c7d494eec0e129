import { z } from 'zod';
import { logLevel, nodeEnv, positiveInt, postgresUrl } from './validators.js';

/** What every process of Nestegg reads: its mode and log level. */
export const processEnvShape = {
  NODE_ENV: nodeEnv,
  LOG_LEVEL: logLevel,
};

/**
 * What sits between the apps' pools and PostgreSQL (decision DB13): `none` (PostgreSQL itself, or a pooler in session
 * mode) or `transaction` (PgBouncer or another pooler in transaction mode: no named prepared statements, no session
 * settings, LISTEN and the job engine on `DATABASE_DIRECT_URL`).
 */
export const databasePooler = z.enum(['none', 'transaction']).default('none');
export type DatabasePooler = z.output<typeof databasePooler>;

/**
 * The PostgreSQL connection and the size of this process's pool. `DATABASE_URL` is what the pool uses (a pooler's
 * address, when there is one); `DATABASE_DIRECT_URL` reaches PostgreSQL itself, for what a transaction pooler
 * cannot carry: LISTEN, the job engine, the migrations (decision DB14). Unset, it is `DATABASE_URL`.
 */
export const databaseEnvShape = (defaultPoolSize: number) => ({
  DATABASE_URL: postgresUrl,
  DATABASE_DIRECT_URL: postgresUrl.optional(),
  DATABASE_POOLER: databasePooler,
  DATABASE_POOL_SIZE: positiveInt(defaultPoolSize, 100),
});

interface DatabaseConnectionEnv {
  DATABASE_URL: string;
  DATABASE_DIRECT_URL?: string | undefined;
  DATABASE_POOLER: DatabasePooler;
}

/**
 * Behind a transaction pooler a direct URL is required (decision DB14): without one, LISTEN and the job engine would
 * go through the pooler, which hands their session's server connection to other clients between transactions
 * (notifications lost, pg-boss's locked plans split). A refinement of each app's schema.
 */
export function requireDirectUrlBehindPooler(env: DatabaseConnectionEnv, context: z.RefinementCtx): void {
  if (env.DATABASE_POOLER === 'transaction' && !env.DATABASE_DIRECT_URL) {
    context.addIssue({
      code: 'custom',
      path: ['DATABASE_DIRECT_URL'],
      message:
        'required when DATABASE_POOLER=transaction: the URL of PostgreSQL itself, for LISTEN, the job engine and the migrations',
    });
  }
}

/** Where what needs a session of its own connects (LISTEN, the job engine, the migrations): PostgreSQL itself. */
export function directDatabaseUrl(env: Pick<DatabaseConnectionEnv, 'DATABASE_URL' | 'DATABASE_DIRECT_URL'>): string {
  return env.DATABASE_DIRECT_URL ?? env.DATABASE_URL;
}

/** The pool's `createDb` options the pooler asks for (decisions DB13, DB15): unnamed statements, no session settings. */
export function databasePoolerOptions(env: Pick<DatabaseConnectionEnv, 'DATABASE_POOLER'>) {
  return env.DATABASE_POOLER === 'transaction' ? { pooler: 'transaction' as const } : {};
}

/** Defaults of the connection timeouts below (each app picks its own; decision FO1). */
export interface DatabaseTimeoutDefaults {
  connectMs: number;
  /** 0: wait for a pooled connection as long as it takes. */
  acquireMs: number;
  /** 0: no statement timeout. */
  statementMs: number;
}

const timeoutMs = (fallback: number, min: number) =>
  z.coerce
    .number()
    .int()
    .refine((value) => value === 0 || (value >= min && value <= 3_600_000), `0 (off) or ${min}–3600000`)
    .default(fallback);

/**
 * How long this process waits on PostgreSQL (decision FO1): to open a connection, for a pooled connection,
 * for one statement; how long idle connections are kept and any connection lives.
 */
export const databaseTimeoutsEnvShape = (defaults: DatabaseTimeoutDefaults) => ({
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(defaults.connectMs),
  DATABASE_ACQUIRE_TIMEOUT_MS: timeoutMs(defaults.acquireMs, 10),
  DATABASE_STATEMENT_TIMEOUT_MS: timeoutMs(defaults.statementMs, 100),
  DATABASE_IDLE_TIMEOUT_SECONDS: positiveInt(30, 86_400),
  DATABASE_MAX_LIFETIME_SECONDS: positiveInt(1800, 86_400),
});

export type DatabaseTimeoutsEnv = z.output<z.ZodObject<ReturnType<typeof databaseTimeoutsEnvShape>>>;

/** Seconds to wait before reconnecting after failed attempts, at most (postgres.js: up to 20). */
const RECONNECT_BACKOFF_MAX_SECONDS = 0.25;

/** The timeouts as `createDb` options of `@nestegg/db`. */
export function databaseTimeoutOptions(env: DatabaseTimeoutsEnv) {
  return {
    connectTimeout: env.DATABASE_CONNECT_TIMEOUT_MS / 1000,
    idleTimeout: env.DATABASE_IDLE_TIMEOUT_SECONDS,
    maxLifetime: env.DATABASE_MAX_LIFETIME_SECONDS,
    reconnectBackoffMaxSeconds: RECONNECT_BACKOFF_MAX_SECONDS,
    ...(env.DATABASE_ACQUIRE_TIMEOUT_MS ? { acquireTimeoutMs: env.DATABASE_ACQUIRE_TIMEOUT_MS } : {}),
    ...(env.DATABASE_STATEMENT_TIMEOUT_MS ? { statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS } : {}),
  };
}

export type ProcessEnv = z.output<z.ZodObject<typeof processEnvShape>>;
