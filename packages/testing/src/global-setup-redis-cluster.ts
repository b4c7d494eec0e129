import type { TestProject } from 'vitest/node';
import { startRedisCluster } from './redis-cluster.js';
import './provided-context.js';

/**
 * Vitest globalSetup (opt-in: `integrationTestConfig({ redisCluster: true })`): one local 3-primary Redis
 * Cluster for the whole run, which `createTestRedis({ cluster: true })` and the apps' test helpers use
 * with a key prefix per file, as they use the single Redis. Stopped when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startRedisCluster();
  project.provide('redisClusterNodes', cluster.nodes);
  return () => cluster.stop();
}
