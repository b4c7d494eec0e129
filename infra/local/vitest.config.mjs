import { defineConfig } from 'vitest/config';

// The launcher's test starts real processes (the launcher, the api, the worker) on real PostgreSQL.
export default defineConfig({
  test: {
    include: ['*.test.mjs'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
