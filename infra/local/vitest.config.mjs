import { testConfig } from '@nestegg/testing/vitest-preset';

// The launcher's test starts real processes (the launcher, the api, the worker) on real PostgreSQL.
export default testConfig({ include: ['*.test.mjs'], testTimeout: 120_000, hookTimeout: 60_000 });
