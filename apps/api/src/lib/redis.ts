import type { FastifyBaseLogger } from 'fastify';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

/** The fast store: one Redis (`REDIS_URL`) or a Redis Cluster (`REDIS_CLUSTER_NODES`), decision R1. */
export type RedisClient = Redis | Cluster;

export interface RedisSettings {
  REDIS_URL?: string | undefined;
  REDIS_CLUSTER_NODES?: Array<{ host: string; port: number }> | undefined;
  REDIS_KEY_PREFIX: string;
  REDIS_TLS: boolean;
  REDIS_USERNAME?: string | undefined;
  REDIS_PASSWORD?: string | undefined;
}

/** The configuration names a cluster where there is one Redis, or the reverse: the api must not start (R3). */
export class RedisTopologyError extends Error {
  override name = 'RedisTopologyError';

  constructor(
    /** The variable to change. */
    readonly variable: 'REDIS_URL' | 'REDIS_CLUSTER_NODES',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Fail fast instead of queueing while Redis is away: callers fall back (sessions to Postgres, login
 * counters let the request pass), as the spec asks. The same options for one Redis and for every node of
 * a cluster.
 */
function connectionOptions(settings: RedisSettings): RedisOptions {
  return {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 5000,
    ...(settings.REDIS_USERNAME ? { username: settings.REDIS_USERNAME } : {}),
    ...(settings.REDIS_PASSWORD ? { password: settings.REDIS_PASSWORD } : {}),
    ...(settings.REDIS_TLS ? { tls: {} } : {}),
  };
}

/** Builds the client (not connected yet): ioredis' Cluster client for `REDIS_CLUSTER_NODES`, else one Redis. */
export function createRedisClient(settings: RedisSettings): RedisClient | null {
  const nodes = settings.REDIS_CLUSTER_NODES;
  if (nodes && nodes.length > 0) {
    const options: ClusterOptions = {
      keyPrefix: settings.REDIS_KEY_PREFIX,
      lazyConnect: true,
      enableOfflineQueue: false,
      // While a shard is away every command on its slots fails within about a second (commandTimeout,
      // then one short retry), and the callers fall back as they do for one Redis.
      maxRedirections: 4,
      retryDelayOnClusterDown: 100,
      retryDelayOnFailover: 100,
      retryDelayOnTryAgain: 100,
      slotsRefreshTimeout: 2000,
      // Primaries only: a replica may lag, and a session dropped on the primary must not be read back.
      scaleReads: 'master',
      redisOptions: connectionOptions(settings),
    };
    return new Cluster(nodes, options);
  }
  if (!settings.REDIS_URL) return null;
  return new Redis(settings.REDIS_URL, {
    ...connectionOptions(settings),
    keyPrefix: settings.REDIS_KEY_PREFIX,
    enableOfflineQueue: false,
  });
}

export function isCluster(redis: RedisClient): redis is Cluster {
  return redis instanceof Cluster;
}

/** `cluster_enabled` of a server's `INFO cluster` (0 on a server without cluster support, or older ones). */
function clusterEnabled(info: string): boolean {
  return /^cluster_enabled:1\s*$/m.test(info);
}

/** One Redis used as a cluster, or a cluster node used as one Redis: the message names the fix. */
function topologyMismatch(settings: RedisSettings, where: string, enabled: boolean): RedisTopologyError | null {
  const asCluster = Boolean(settings.REDIS_CLUSTER_NODES?.length);
  if (asCluster && !enabled) {
    return new RedisTopologyError(
      'REDIS_CLUSTER_NODES',
      `REDIS_CLUSTER_NODES names ${where}, a Redis that is not a cluster node (INFO cluster: cluster_enabled:0); ` +
        'point REDIS_URL at it instead, or REDIS_CLUSTER_NODES at the nodes of a Redis Cluster',
    );
  }
  if (!asCluster && enabled) {
    return new RedisTopologyError(
      'REDIS_URL',
      `REDIS_URL points at ${where}, a Redis Cluster node (INFO cluster: cluster_enabled:1): as one Redis it would ` +
        'refuse most keys (MOVED) and the api would run without its cache and limits; ' +
        'set REDIS_CLUSTER_NODES=host:port,… (and unset REDIS_URL) instead',
    );
  }
  return null;
}

/**
 * Asks a reachable server whether it is a cluster node, through a connection of its own with the same
 * options (a Cluster client that seeds on a plain Redis only retries `CLUSTER SLOTS` forever). Null when
 * every node is unreachable: then it is asked again once it is (see `watchTopology`).
 */
export async function checkRedisTopology(settings: RedisSettings): Promise<RedisTopologyError | null | 'unreachable'> {
  const targets = settings.REDIS_CLUSTER_NODES?.length
    ? settings.REDIS_CLUSTER_NODES.map(({ host, port }) => ({
        where: `${host}:${port}`,
        open: () => new Redis({ ...connectionOptions(settings), host, port, enableOfflineQueue: true }),
      }))
    : settings.REDIS_URL
      ? [
          {
            where: redactedUrl(settings.REDIS_URL),
            open: () => new Redis(settings.REDIS_URL!, { ...connectionOptions(settings), enableOfflineQueue: true }),
          },
        ]
      : [];
  for (const target of targets) {
    const probe = target.open();
    probe.on('error', () => {});
    let timer: NodeJS.Timeout | undefined;
    // A frozen server accepts the connection and never answers: give up on it like on a refused one.
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer')), TOPOLOGY_CHECK_TIMEOUT_MS);
    });
    try {
      const info = await Promise.race([probe.connect().then(() => probe.info('cluster')), gaveUp]);
      return topologyMismatch(settings, target.where, clusterEnabled(info));
    } catch {
      // Not reachable now; ask the next seed.
    } finally {
      clearTimeout(timer);
      probe.disconnect();
    }
  }
  return 'unreachable';
}

/** Longest wait for one server's `INFO cluster` at start. */
const TOPOLOGY_CHECK_TIMEOUT_MS = 3000;

function redactedUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * Opens the client. The wrong topology stops the start (R3); an unreachable Redis does not (ioredis keeps
 * reconnecting), and the topology is then checked when it first answers: a mismatch found that late is
 * logged at fatal level and the client is closed, so the instance serves from its fallbacks and reports
 * the cache down (`/readyz` degraded) instead of failing every key.
 */
export async function openRedis(
  settings: RedisSettings,
  logger: FastifyBaseLogger,
  onError: (error: unknown) => void,
): Promise<RedisClient | null> {
  const redis = createRedisClient(settings);
  if (!redis) return null;
  const topology = await checkRedisTopology(settings);
  if (topology instanceof RedisTopologyError) {
    redis.disconnect();
    throw topology;
  }
  redis.on('error', onError);
  if (topology === 'unreachable') {
    redis.once('ready', () => {
      void checkRedisTopology(settings).then((late) => {
        if (!(late instanceof RedisTopologyError)) return;
        logger.fatal({ err: late }, 'redis topology does not match the configuration; running without redis');
        redis.disconnect();
      });
    });
  }
  await redis.connect().catch((error: unknown) => logger.error({ err: error }, 'redis is not reachable; retrying'));
  return redis;
}

/**
 * Readiness: one Redis answers PING; a cluster only when every primary that owns slots answers (one shard
 * away means a third of the sessions and counters fail), decision R5.
 */
export async function pingRedis(redis: RedisClient): Promise<void> {
  if (!isCluster(redis)) {
    await redis.ping();
    return;
  }
  const primaries = redis.nodes('master');
  if (primaries.length === 0) throw new Error('no cluster primary is connected');
  await Promise.all(primaries.map((node) => node.ping()));
  const [info, nodes] = await Promise.all([primaries[0]!.cluster('INFO'), primaries[0]!.cluster('NODES')]);
  if (!/^cluster_state:ok\s*$/m.test(String(info))) throw new Error('cluster_state is not ok');
  // A primary the others already see failing (PFAIL or FAIL) while it still owns slots.
  const failing = String(nodes)
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter(
      (fields) =>
        fields.length > 8 && /(^|,)master(,|$)/.test(fields[2] ?? '') && /(^|,)fail\??(,|$)/.test(fields[2] ?? ''),
    );
  if (failing.length > 0)
    throw new Error(`cluster primary ${failing.map((fields) => fields[1]).join(', ')} is failing`);
}
