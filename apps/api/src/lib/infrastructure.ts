import type { Database } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import type { FastifyBaseLogger } from 'fastify';
import type postgres from 'postgres';
import type { Env } from '../env.js';
import type { AttemptStore } from './attempt-store.js';
import type { Traffic } from './give-way.js';
import type { ApiMetrics } from './metrics.js';
import type { ReadReplicas } from './read-replicas.js';
import type { RedisClient } from './redis.js';

/** Connections and process-wide facilities, opened once; services are built from these. */
export interface Infrastructure {
  env: Env;
  db: Database;
  /**
   * The reads a replica may serve (decision DB20): a database whose statements go to the replica the request's
   * route chose (`plugins/read-routing.ts`), else to the primary. Without `DATABASE_READ_URL` it is `db` itself.
   */
  reader: Database;
  /** The read replicas of `DATABASE_READ_URL` and the choice among them; null without it. */
  readReplicas: ReadReplicas | null;
  sql: postgres.Sql;
  /** The client to LISTEN on: `sql`, or one on `DATABASE_DIRECT_URL` behind a transaction pooler (decision DB14). */
  listener: postgres.Sql;
  /** The fast store (one Redis or a cluster); null without REDIS_URL or REDIS_CLUSTER_NODES (sessions then live in Postgres only). */
  redis: RedisClient | null;
  /** Attempt counters for login and gate limits (in Redis; in memory without it). */
  attempts: AttemptStore;
  logger: FastifyBaseLogger;
  clock: Clock;
  /** Instruments services record into (served on METRICS_PORT by the server). */
  metrics: ApiMetrics;
  /** Requests this process has received (counted by the infrastructure plugin): long jobs give way to them. */
  traffic: Traffic;
}

export interface OpenedInfrastructure {
  infrastructure: Infrastructure;
  close(): Promise<void>;
}
