import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { inject } from 'vitest';
import { testRedisUrl } from './env.js';
import './provided-context.js';

/** The Redis a test runs against: one server, or the run's local Redis Cluster. */
export type RedisTopology = 'single' | 'cluster';
/** For `describe.each`: the tests that must hold on both. */
export const redisTopologies: RedisTopology[] = ['single', 'cluster'];

export interface TestRedis {
  topology: RedisTopology;
  /** The single Redis's URL (empty for a cluster). */
  url: string;
  /** The cluster's `host:port,…` (empty for a single Redis). */
  clusterNodes: string;
  /** Every key the code under test writes starts with this, so test files never see each other's keys. */
  keyPrefix: string;
  /** A client on the same prefix, for assertions. */
  client: Redis | Cluster;
  /** Every key under the prefix (prefix included), from every primary of a cluster. */
  keys(): Promise<string[]>;
  cleanup(): Promise<void>;
}

/** The run's cluster (started by the cluster global setup); fails clearly when the config did not ask for one. */
export function testRedisClusterNodes(): string {
  const nodes = inject('redisClusterNodes');
  if (!nodes) throw new Error('no Redis Cluster in this run: use integrationTestConfig({ redisCluster: true })');
  return nodes;
}

export async function createTestRedis(options: { topology?: RedisTopology } = {}): Promise<TestRedis> {
  const topology = options.topology ?? 'single';
  const keyPrefix = `nestegg:test:${randomBytes(6).toString('hex')}:`;
  const clusterNodes = topology === 'cluster' ? testRedisClusterNodes() : '';
  const client =
    topology === 'cluster'
      ? new Cluster(
          clusterNodes.split(',').map((node) => {
            const [host, port] = node.split(':');
            return { host: host!, port: Number(port) };
          }),
          { keyPrefix, lazyConnect: true, redisOptions: { maxRetriesPerRequest: 1 } },
        )
      : new Redis(testRedisUrl, { keyPrefix, lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  const keys = async () => {
    const servers = client instanceof Cluster ? client.nodes('master') : [client];
    const found = await Promise.all(servers.map((server) => scanPrefix(server, keyPrefix)));
    return found.flat();
  };
  return {
    topology,
    url: topology === 'cluster' ? '' : testRedisUrl,
    clusterNodes,
    keyPrefix,
    client,
    keys,
    async cleanup() {
      // One DEL per key: a cluster refuses a DEL of keys in different slots.
      const found = await keys();
      await Promise.all(found.map((key) => client.del(key.slice(keyPrefix.length))));
      client.disconnect();
    },
  };
}

async function scanPrefix(server: Redis, keyPrefix: string): Promise<string[]> {
  // SCAN patterns ignore ioredis' keyPrefix (and a cluster's node connections have none): match the full key.
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await server.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}
