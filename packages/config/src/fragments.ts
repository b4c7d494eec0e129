import { z } from 'zod';
import { logLevel, nodeEnv, positiveInt, postgresUrl } from './validators.js';

/** What every process of Nestegg reads: its mode and log level. */
export const processEnvShape = {
  NODE_ENV: nodeEnv,
  LOG_LEVEL: logLevel,
};

/** The PostgreSQL connection and the size of this process's pool. */
export const databaseEnvShape = (defaultPoolSize: number) => ({
  DATABASE_URL: postgresUrl,
  DATABASE_POOL_SIZE: positiveInt(defaultPoolSize, 100),
});

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
