import { databasePoolerOptions, databaseTimeoutOptions, directDatabaseUrl } from '@nestegg/config';
import { createDb } from '@nestegg/db';
import { type Clock, systemClock } from '@nestegg/domain';
import { activeTracing } from '@nestegg/telemetry';
import type { FastifyBaseLogger } from 'fastify';
import type { Env } from './env.js';
import { MemoryAttemptStore, RedisAttemptStore } from './lib/attempt-store.js';
import type { OpenedInfrastructure } from './lib/infrastructure.js';
import { ApiMetrics } from './lib/metrics.js';
import { openRedis, type RedisClient } from './lib/redis.js';

/**
 * Redis (one server or a cluster, `lib/redis.ts`) fails fast instead of queueing while it is away: callers
 * fall back (sessions to Postgres, login counters let the request pass), as the spec asks. An unreachable
 * Redis at start is not fatal either; ioredis keeps reconnecting in the background. A Redis of the wrong
 * topology (a cluster node as REDIS_URL, or the reverse) stops the start (decision R3).
 */
function connectRedis(env: Env, logger: FastifyBaseLogger, metrics: ApiMetrics): Promise<RedisClient | null> {
  return openRedis(env, logger, (error) => {
    metrics.redisErrors.inc();
    logger.warn({ err: error }, 'redis error');
  });
}

export async function openInfrastructure(
  env: Env,
  logger: FastifyBaseLogger,
  options: { applicationName?: string; poolSize?: number; clock?: Clock; runtimeMetrics?: boolean } = {},
): Promise<OpenedInfrastructure> {
  const tracing = activeTracing();
  const database = createDb(env.DATABASE_URL, {
    max: options.poolSize ?? env.DATABASE_POOL_SIZE,
    applicationName: options.applicationName ?? 'nestegg-api',
    ...databaseTimeoutOptions(env),
    // Behind a transaction pooler: unnamed statements, SET LOCAL, LISTEN on PostgreSQL itself (DB13–DB15).
    ...databasePoolerOptions(env),
    directUrl: directDatabaseUrl(env),
    ...(tracing ? { tracer: tracing.tracer } : {}),
  });
  // Runtime metrics (event-loop delay, GC, heap) only where they are served: the api, not the command line.
  const metrics = new ApiMetrics({ runtime: options.runtimeMetrics ?? false });
  if (database.gate) {
    metrics.observeConnectionPool(database.gate);
    database.gate.observer = {
      waited: (seconds) => metrics.connectionWait.observe(seconds),
      held: (seconds, outcome) => metrics.operationDuration.observe({ db_system_name: 'postgresql', outcome }, seconds),
    };
  }
  const redis = await connectRedis(env, logger, metrics).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  return {
    infrastructure: {
      env,
      db: database.db,
      sql: database.sql,
      listener: database.listener,
      redis,
      attempts: redis ? new RedisAttemptStore(redis) : new MemoryAttemptStore(),
      logger,
      clock: options.clock ?? systemClock,
      metrics,
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await database.close();
    },
  };
}
