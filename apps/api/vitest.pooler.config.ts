import { integrationTestConfig } from '@nestegg/testing/vitest-preset';

/**
 * The api's board suites and the core of the ledger (entries, wallets, categories, tags, budgets, the delta sync) once
 * more, behind PgBouncer in transaction mode (decision DB17): each file's app
 * gets `DATABASE_URL` through the run's PgBouncer, `DATABASE_DIRECT_URL` on the test server and
 * `DATABASE_POOLER=transaction`, as a deployment behind a pooler runs. `pnpm test` runs it after the whole suite.
 */
export const POOLED_SUITES = [
  'src/modules/board/**/*.test.ts',
  ...['entries', 'wallets', 'categories', 'tags', 'budgets', 'changes'].map(
    (module) => `src/modules/ledger/${module}/**/*.test.ts`,
  ),
  'src/pooler.test.ts',
];

export default integrationTestConfig({
  redisCluster: true,
  pgbouncer: true,
  include: POOLED_SUITES,
  setupFiles: ['src/test/problem-codes.setup.ts'],
});
