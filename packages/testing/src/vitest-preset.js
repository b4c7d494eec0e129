// Plain JavaScript: vitest loads its config files with Node itself, before any TypeScript transform.
// Every package's vitest.config starts from this file and adds only its own differences.
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

const sourceConditions = ['@nestegg/source', ...defaultServerConditions];
const packagesDir = new URL('../../', import.meta.url).pathname;

/**
 * Workspace entry points mapped to their TypeScript sources. Conditions alone do not reach the global
 * setup, which vitest runs in its main process and whose package imports Node would resolve to `dist/`.
 */
const workspaceSources = [
  ['@nestegg/db/migrate', 'db/src/migrate.ts'],
  ['@nestegg/db', 'db/src/index.ts'],
  ['@nestegg/openapi', 'openapi/src/index.ts'],
  ['@nestegg/contract', 'contract/src/index.ts'],
  ['@nestegg/testing', 'testing/src/index.ts'],
  ['@nestegg/domain', 'domain/src/index.ts'],
  ['@nestegg/membership/testing', 'membership/src/testing/index.ts'],
  ['@nestegg/membership', 'membership/src/index.ts'],
].map(([name, file]) => ({ find: new RegExp(`^${name}$`), replacement: `${packagesDir}${file}` }));

/**
 * The vitest config of every package: workspace packages resolve to their TypeScript sources (the
 * `@nestegg/source` condition), and tests are the `*.test.ts` files under `src/` and `test/`.
 * @param {import('./vitest-preset').TestOptions} [test] the package's own settings; each replaces the preset's
 */
export function testConfig(test = {}) {
  return defineConfig({
    resolve: { conditions: sourceConditions },
    ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@nestegg/source'] } },
    test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], ...test },
  });
}

/**
 * The config of packages whose tests use real Postgres and Redis: on top of `testConfig`, workspace packages
 * resolve to their sources in the global setup too, the migrated template database is prepared once per run,
 * and each test file runs in its own process.
 * With `redisCluster: true`, a local 3-primary Redis Cluster is started once per run as well (tests reach it
 * through `createTestRedis({ cluster: true })`). With `pgbouncer: true`, a PgBouncer in transaction mode in front of
 * the test server (the apps' test helpers then run their apps through it, decision DB17).
 * @param {import('./vitest-preset').TestOptions & { redisCluster?: boolean, pgbouncer?: boolean }} [options]
 */
export function integrationTestConfig({ redisCluster = false, pgbouncer = false, ...test } = {}) {
  const config = testConfig({
    globalSetup: [
      new URL('./global-setup.ts', import.meta.url).pathname,
      ...(redisCluster ? [new URL('./global-setup-redis-cluster.ts', import.meta.url).pathname] : []),
      ...(pgbouncer ? [new URL('./global-setup-pgbouncer.ts', import.meta.url).pathname] : []),
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    ...test,
  });
  return { ...config, resolve: { ...config.resolve, alias: workspaceSources } };
}
