import type { z } from 'zod';
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

export type ProcessEnv = z.output<z.ZodObject<typeof processEnvShape>>;
