import type { UserConfig } from 'vitest/config';

export declare function integrationTestConfig(options?: { include?: string[]; redisCluster?: boolean }): UserConfig;
