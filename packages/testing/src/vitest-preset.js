// Plain JavaScript: vitest loads its config files with Node itself, before any TypeScript transform.
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

const sourceConditions = ['@nestegg/source', ...defaultServerConditions];

/**
 * Vitest config for packages whose tests use real Postgres and Redis: workspace packages resolve to
 * their TypeScript sources, and the migrated template database is prepared once per run.
 * @param {{ include?: string[] }} [options]
 */
export function integrationTestConfig(options = {}) {
  return defineConfig({
    resolve: { conditions: sourceConditions },
    ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@nestegg/source'] } },
    test: {
      include: options.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      globalSetup: [new URL('./global-setup.ts', import.meta.url).pathname],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
    },
  });
}
