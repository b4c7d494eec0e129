import type { ViteUserConfig } from 'vitest/config';

/** Vitest's `test` options: a package passes only those it sets differently from the preset. */
export type TestOptions = NonNullable<ViteUserConfig['test']>;

export declare function testConfig(test?: TestOptions): ViteUserConfig;

export declare function integrationTestConfig(
  options?: TestOptions & { redisCluster?: boolean; pgbouncer?: boolean },
): ViteUserConfig;
