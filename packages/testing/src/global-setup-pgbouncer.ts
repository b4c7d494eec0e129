import type { TestProject } from 'vitest/node';
import { startPgBouncer } from './pgbouncer.js';
import './provided-context.js';

/**
 * Vitest globalSetup (opt-in: `integrationTestConfig({ pgbouncer: true })`, decision DB17): one PgBouncer in
 * transaction mode for the whole run, in front of the test server, passing every database name through, so each test
 * file's own database (copied from the template) is reachable through it. The apps' test helpers then give their app
 * `DATABASE_URL` through the pooler, `DATABASE_DIRECT_URL` on the server and `DATABASE_POOLER=transaction`.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const bouncer = await startPgBouncer({ poolMode: 'transaction' });
  project.provide('pgbouncerPort', bouncer.port);
  return () => bouncer.stop();
}
