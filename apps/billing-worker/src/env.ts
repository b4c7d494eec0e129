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
  SESSION_CLEANUP_CRON: cronExpression('17 3 * * *'),
  IDEMPOTENCY_CLEANUP_CRON: cronExpression('37 3 * * *'),
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
