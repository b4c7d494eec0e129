import {
  cronExpression,
  databaseEnvShape,
  loadEnvironment,
  loadEnvironmentOrExit,
  port,
  positiveInt,
  processEnvShape,
  timeZone,
} from '@nestegg/config';
import { z } from 'zod';

const shape = {
  ...processEnvShape,
  ...databaseEnvShape(4),
  /** Connections of the job engine's own pool (pg-boss), on top of DATABASE_POOL_SIZE. */
  JOBS_POOL_SIZE: positiveInt(4, 50),
  WORKER_HOST: z.string().default('0.0.0.0'),
  WORKER_HEALTH_PORT: port(3001),
  JOBS_TIMEZONE: timeZone(),
  /** The ledger's calendar, as in the api: the day recurring transactions fall due. */
  APP_TIMEZONE: timeZone(),
  SESSION_CLEANUP_CRON: cronExpression('17 3 * * *'),
  IDEMPOTENCY_CLEANUP_CRON: cronExpression('37 3 * * *'),
  RECURRING_POSTING_CRON: cronExpression('7 0 * * *'),
  SYNC_TOMBSTONE_CLEANUP_CRON: cronExpression('47 3 * * *'),
  /** Days a delta-sync tombstone is kept: a device offline longer syncs from scratch. */
  SYNC_TOMBSTONE_RETENTION_DAYS: positiveInt(90, 3650),
};

export const envSchema = z.object(shape);
export type WorkerEnv = z.output<typeof envSchema>;

const keys = Object.keys(shape);

/** Parses the environment once; throws an `InvalidEnvironmentError` naming every bad variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env): WorkerEnv {
  return loadEnvironment(envSchema, keys, source);
}

/** For the entry point: prints every bad variable and exits. */
export function loadEnvOrExit(): WorkerEnv {
  return loadEnvironmentOrExit('nestegg-billing-worker', envSchema, keys);
}
