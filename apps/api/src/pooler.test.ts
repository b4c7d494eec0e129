/**
 * Behind a transaction pooler (decisions DB13–DB17). Two parts:
 *
 * - The code keeps no session state a pooler would hand to another client (DB16): read from the sources of every
 *   process, so a change that adds some fails here, in the ordinary run, before any pooler sees it.
 * - In the pooled run (`vitest.pooler.config.ts`, the run's PgBouncer), this file's app is behind the pooler as a
 *   deployment's would be: its pool through PgBouncer, its LISTEN on PostgreSQL itself, and requests answer.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject } from 'vitest';
import { bodyOf } from './test/client.js';
import { test } from './test/fixtures.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The production sources of the processes that talk to PostgreSQL (no tests, fixtures or test kits). */
const SOURCE_DIRS = ['apps/api/src', 'apps/billing-worker/src', 'packages/db/src', 'packages/membership/src'];

async function sources(): Promise<Array<{ path: string; text: string }>> {
  const files: Array<{ path: string; text: string }> = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['test', 'testing', 'node_modules', 'dist'].includes(entry.name)) await walk(path);
      } else if (/\.ts$/.test(entry.name) && !/\.(test|fixture)\.ts$/.test(entry.name)) {
        files.push({ path: relative(root, join(root, path)), text: await readFile(join(root, path), 'utf8') });
      }
    }
  };
  for (const dir of SOURCE_DIRS) await walk(dir);
  return files;
}

/** Every match of `pattern` in the sources, as `path: match`. */
async function occurrences(pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  for (const { path, text } of await sources()) {
    for (const match of text.matchAll(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`))) {
      found.push(`${path}: ${match[0].replace(/\s+/g, ' ').trim()}`);
    }
  }
  return found;
}

describe('no session state a transaction pooler would pass on (DB16)', () => {
  test('advisory locks are transaction-scoped, except the migrations’ own (on DATABASE_DIRECT_URL)', async () => {
    const sessionLocks = await occurrences(/pg_(?:try_)?advisory_(?:un)?lock(?:_shared)?\s*\(/);
    expect(sessionLocks.every((found) => found.startsWith('packages/db/src/migrate.ts:'))).toBe(true);
    expect(sessionLocks.length).toBeGreaterThan(0);
    const transactionLocks = await occurrences(/pg_advisory_xact_lock(?:_shared)?\s*\(/);
    expect(transactionLocks.length).toBeGreaterThanOrEqual(10);
  });

  test('settings only as SET LOCAL (or set_config(…, true)); no session SET, RESET or DISCARD', async () => {
    // An SQL text that starts with SET / RESET (a template or a string), and set_config that is not local.
    // (Setting names are lower case in the code: a message such as 'set REDIS_URL…' is not SQL.)
    expect(
      await occurrences(
        /[`'"]\s*(?:[sS][eE][tT]|[rR][eE][sS][eE][tT])\s+(?!local\b|LOCAL\b)(?:session\s+)?[a-z_.]+\s*(?:=|to\b)/,
      ),
    ).toEqual([]);
    expect(await occurrences(/[`'"]\s*(?:reset\s+all|discard\s)/i)).toEqual([]);
    expect(await occurrences(/set_config\s*\([^)]*,\s*false\s*\)/i)).toEqual([]);
    // The one setting the apps make on their sessions: a connection parameter with no pooler, SET LOCAL behind one.
    expect(await occurrences(/set local statement_timeout/)).toEqual([
      expect.stringMatching(/^packages\/db\/src\/client\.ts: /),
    ]);
  });

  test('no temporary tables, held cursors or SQL-level PREPARE in the request and job paths', async () => {
    expect(
      await occurrences(/create\s+(?:temp|temporary)\s+table|with\s+hold|[`'"]\s*prepare\s+[a-z_]+\s+as\b/i),
    ).toEqual([]);
  });

  test('LISTEN only on the listener (PostgreSQL itself, DATABASE_DIRECT_URL) or the job engine’s direct pool', async () => {
    const listens = await occurrences(/[\w.)?\s]*\.listen\(\s*[A-Z_]+_CHANNEL|[\w.]+\.listen\(channel/);
    expect(listens.sort()).toEqual([
      expect.stringMatching(
        /^apps\/api\/src\/modules\/members\/auth\/session\.store\.ts: .*listener \?\? this\.deps\.sql\)\.listen/,
      ),
      expect.stringMatching(
        /^apps\/billing-worker\/src\/jobs\/store-notifications\.ts: .*listener \?\? this\.deps\.sql\)\.listen/,
      ),
      expect.stringMatching(/^packages\/db\/src\/job-engine\.ts: sql\.listen\(channel/),
    ]);
  });
});

const pgbouncerPort = inject('pgbouncerPort');

describe.runIf(pgbouncerPort)('this file’s app behind the run’s PgBouncer (DB17)', () => {
  test('its pool is on the pooler, in transaction mode, and its LISTEN on PostgreSQL itself', async ({
    app,
    testDatabase,
  }) => {
    expect(new URL(app.env.DATABASE_URL).port).toBe(String(pgbouncerPort));
    expect(app.env.DATABASE_POOLER).toBe('transaction');
    expect(app.env.DATABASE_DIRECT_URL).toBe(testDatabase.url);
    const postgres = (await import('postgres')).default;
    const direct = postgres(testDatabase.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await direct<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
         where datname = current_database() and application_name = 'nestegg-api' and query ilike 'listen %'`;
      expect(row?.n).toBe(1);
    } finally {
      await direct.end();
    }
  });

  test('requests that read, write and lock answer through it', async ({ free }) => {
    const wallet = bodyOf(await free.api.ledger.wallets.create({ body: { name: 'Cash', type: 'CASH' } }), 201);
    // A category: the create takes the member's category lock (an advisory lock of the transaction).
    bodyOf(await free.api.ledger.categories.create({ body: { name: 'Food', type: 'EXPENSE' } }), 201);
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        free.api.ledger.entries.create({
          body: { type: 'EXPENSE', amount: 100 + index, date: '2026-12-01', category: 'Food', accountId: wallet.id },
        }),
      ),
    );
    for (const response of created) bodyOf(response, 201);
    bodyOf(await free.api.ledger.entries.list({ query: {} }), 200);
    // The wallet's balance, kept by triggers in each entry's transaction, saw every one of them.
    const after = bodyOf(await free.api.ledger.wallets.list(), 200).items.find((item) => item.id === wallet.id);
    expect(after?.balance).toBe(wallet.balance - (12 * 100 + 66));
  });
});
