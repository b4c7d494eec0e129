import { integrationTestConfig } from '@nestegg/testing/vitest-preset';

// The run's local Redis Cluster: the Redis tests run against one Redis and a cluster (decision R4).
export default integrationTestConfig({ redisCluster: true });
