import { integrationTestConfig } from '@nestegg/testing/vitest-preset';

// The run's local Redis Cluster: the Redis tests run against one Redis and a cluster (decision R4). Every test
// fails when a route answers a problem code the contract does not declare for it (decision C32).
export default integrationTestConfig({ redisCluster: true, setupFiles: ['src/test/problem-codes.setup.ts'] });
