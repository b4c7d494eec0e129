import { integrationTestConfig } from '@nestegg/testing/vitest-preset';

/**
 * The store inbox and the recurring postings once more with the worker behind PgBouncer in transaction mode (decision
 * DB17): its pool through the run's PgBouncer, its job engine and LISTEN on `DATABASE_DIRECT_URL`. `pnpm test` runs
 * it after the whole suite.
 */
export default integrationTestConfig({
  pgbouncer: true,
  include: ['src/jobs/store-notifications.test.ts', 'src/jobs/recurring-posting.test.ts'],
});
