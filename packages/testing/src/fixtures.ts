import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabaseFromTemplate, type TestDatabase } from './postgres.js';
import { createTestRedis, type RedisTopology, type TestRedis } from './redis.js';
import './provided-context.js';

export interface Lazy<T> {
  readonly current: T;
}

function lazy<T>(label: string): { set(value: T): void; ref: Lazy<T> } {
  let value: T | undefined;
  return {
    set: (next) => {
      value = next;
    },
    ref: {
      get current(): T {
        if (value === undefined) throw new Error(`${label} is only available inside tests (after beforeAll)`);
        return value;
      },
    },
  };
}

/** This test file's own database, copied from the migrated template and dropped afterwards. */
export function useTestDatabase(): Lazy<TestDatabase> {
  const holder = lazy<TestDatabase>('the test database');
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createDatabaseFromTemplate(inject('templateDatabase'));
    holder.set(database);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return holder.ref;
}

/** This test file's own Redis key prefix (on the single Redis or the run's cluster); its keys are deleted afterwards. */
export function useTestRedis(topology: RedisTopology = 'single'): Lazy<TestRedis> {
  const holder = lazy<TestRedis>('the test redis');
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    redis = await createTestRedis({ topology });
    holder.set(redis);
  });
  afterAll(async () => {
    await redis?.cleanup();
  });
  return holder.ref;
}

/**
 * How an app of this run reaches a test database: directly, or with the run's PgBouncer (`pgbouncer: true` in the
 * config, decision DB17) through the pooler, the database itself as the direct URL.
 */
export function databaseUrlsFor(url: string): Pick<AppFixtureContext, 'databaseUrl' | 'directDatabaseUrl'> {
  const pgbouncerPort = inject('pgbouncerPort');
  if (!pgbouncerPort) return { databaseUrl: url };
  const pooled = new URL(url);
  pooled.hostname = '127.0.0.1';
  pooled.port = String(pgbouncerPort);
  return { databaseUrl: pooled.toString(), directDatabaseUrl: url };
}

export interface AppFixtureContext {
  /** The app's `DATABASE_URL`: this file's database, through the run's PgBouncer when there is one. */
  databaseUrl: string;
  /** Set when `databaseUrl` is a transaction pooler's: the same database on the server (`DATABASE_DIRECT_URL`). */
  directDatabaseUrl?: string;
  redisUrl: string;
  redisKeyPrefix: string;
  /** Set (and `redisUrl` empty) when the app runs on the run's Redis Cluster. */
  redisClusterNodes?: string;
}

/**
 * Builds an app (anything closable, typically a Fastify instance used through `inject`) on this file's
 * own database and Redis prefix. The api's test helper wraps this with its `buildApp`.
 */
export function useApp<App extends { close(): Promise<unknown> }>(
  factory: (context: AppFixtureContext) => Promise<App>,
  options: { redis?: RedisTopology } = {},
): Lazy<App> & { database: Lazy<TestDatabase>; redis: Lazy<TestRedis> } {
  const database = useTestDatabase();
  const redis = useTestRedis(options.redis);
  const holder = lazy<App>('the app');
  let app: App | undefined;
  beforeAll(async () => {
    app = await factory({
      ...databaseUrlsFor(database.current.url),
      redisUrl: redis.current.url,
      redisKeyPrefix: redis.current.keyPrefix,
      ...(redis.current.clusterNodes ? { redisClusterNodes: redis.current.clusterNodes } : {}),
    });
    holder.set(app);
  });
  afterAll(async () => {
    await app?.close();
  });
  return Object.assign(holder.ref, { database, redis });
}
