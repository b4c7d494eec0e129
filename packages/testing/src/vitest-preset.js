// Plain JavaScript: vitest loads its config files with Node itself, before any TypeScript transform.
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
 * Vitest config for packages whose tests use real Postgres and Redis: workspace packages resolve to
 * their TypeScript sources, and the migrated template database is prepared once per run.
 * With `redisCluster: true`, a local 3-primary Redis Cluster is started once per run as well (tests reach it
 * through `createTestRedis({ cluster: true })`).
 * @param {{ include?: string[], redisCluster?: boolean }} [options]
 */
export function integrationTestConfig(options = {}) {
  return defineConfig({
    resolve: { conditions: sourceConditions, alias: workspaceSources },
    ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@nestegg/source'] } },
    test: {
      include: options.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      globalSetup: [
        new URL('./global-setup.ts', import.meta.url).pathname,
        ...(options.redisCluster ? [new URL('./global-setup-redis-cluster.ts', import.meta.url).pathname] : []),
      ],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
    },
  });
}
