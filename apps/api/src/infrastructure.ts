import { databasePoolerOptions, databaseTimeoutOptions, directDatabaseUrl } from '@nestegg/config';
import { createDb, type DbHandle, parseReadDatabaseUrl, routedReader } from '@nestegg/db';
import { type Clock, systemClock } from '@nestegg/domain';
import { activeTracing } from '@nestegg/telemetry';
import type { FastifyBaseLogger } from 'fastify';
import type { Env } from './env.js';
import { MemoryAttemptStore, RedisAttemptStore } from './lib/attempt-store.js';
import { Traffic } from './lib/give-way.js';
import type { OpenedInfrastructure } from './lib/infrastructure.js';
import { ApiMetrics } from './lib/metrics.js';
import { MemoryWritePositions, ReadReplicas, RedisWritePositions } from './lib/read-replicas.js';
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
  options: {
    applicationName?: string;
    poolSize?: number;
    clock?: Clock;
    runtimeMetrics?: boolean;
    /** Open the read replicas of DATABASE_READ_URL (the api); the admin command reads the primary only. */
    readReplicas?: boolean;
  } = {},
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
  const replicas = options.readReplicas === false ? null : openReadReplicas(env, logger, metrics, database, redis);
  await replicas?.readReplicas.start();
  return {
    infrastructure: {
      env,
      db: database.db,
      reader: replicas
        ? routedReader(database.db, (replica, error) => replicas.readReplicas.replicaFailed(replica, error))
        : database.db,
      readReplicas: replicas?.readReplicas ?? null,
      sql: database.sql,
      listener: database.listener,
      redis,
      attempts: redis ? new RedisAttemptStore(redis) : new MemoryAttemptStore(),
      logger,
      clock: options.clock ?? systemClock,
      metrics,
      traffic: new Traffic(),
    },
    async close() {
      await replicas?.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await database.close();
    },
  };
}

/**
 * A pool per host of `DATABASE_READ_URL` (decision DB21), each with `DATABASE_READ_POOL_SIZE` connections and the
 * primary's timeouts, and the choice among them; null without it (nothing is opened, nothing probed).
 */
function openReadReplicas(
  env: Env,
  logger: FastifyBaseLogger,
  metrics: ApiMetrics,
  primary: DbHandle,
  redis: Awaited<ReturnType<typeof connectRedis>>,
) {
  if (!env.DATABASE_READ_URL) return null;
  const url = env.DATABASE_READ_URL;
  const { hosts, targetSessionAttrs } = parseReadDatabaseUrl(url);
  const tracing = activeTracing();
  const pools = hosts.map((host) => {
    const handle = createDb(url, {
      onlyHost: host,
      max: env.DATABASE_READ_POOL_SIZE,
      applicationName: 'nestegg-api-read',
      ...databaseTimeoutOptions(env),
      // A replica may sit behind the same kind of pooler as the primary: the setting covers both URLs.
      ...databasePoolerOptions(env),
      ...(tracing ? { tracer: tracing.tracer } : {}),
    });
    return { name: `${host.host}:${host.port}`, db: handle.db, sql: handle.sql, handle };
  });
  const readReplicas = new ReadReplicas({
    replicas: pools,
    primary: primary.db.$client,
    primaryProbe: primary.sql,
    positions: redis ? new RedisWritePositions(redis) : new MemoryWritePositions(),
    targetSessionAttrs,
    maxLagMs: env.DATABASE_READ_MAX_LAG_MS,
    probeIntervalMs: env.DATABASE_READ_PROBE_INTERVAL_MS,
    logger,
    metrics: {
      fallback: (reason) => metrics.readReplicaFallbacks.inc({ reason }),
      routed: (target, consistency) => metrics.readRequests.inc({ target, consistency }),
      state: (replica, state) => {
        metrics.readReplicaUp.set({ replica }, state.up ? 1 : 0);
        metrics.readReplicaLag.set({ replica }, state.lagSeconds);
        metrics.readReplicaLagBytes.set({ replica }, state.lagBytes);
      },
    },
  });
  return {
    readReplicas,
    async close() {
      await readReplicas.stop();
      await Promise.all(pools.map((pool) => pool.handle.close()));
    },
  };
}
