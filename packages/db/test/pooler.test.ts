/**
 * Behind PgBouncer in transaction mode (decisions DB13–DB16): a real PgBouncer (Debian's 1.18) started by the test in
 * front of the test server, pooling each database on 2 server connections, so that clients share them as a
 * deployment's replicas do. What goes wrong without `pooler: 'transaction'`, and that it holds with it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivatePgBouncer, startPgBouncer } from '../../testing/src/pgbouncer';
import { createDb, type DbHandle, member, rawSelect } from '../src/index';
import { migrateDatabase } from '../src/migrate';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `nestegg_db_pooler_${randomBytes(6).toString('hex')}`;
const directUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
let admin: postgres.Sql;
let bouncer: PrivatePgBouncer;
let pooledUrl: string;

beforeAll(async () => {
  admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  await migrateDatabase(directUrl);
  bouncer = await startPgBouncer({ poolSize: 2 });
  pooledUrl = bouncer.urlFor(directUrl);
});
afterAll(async () => {
  await bouncer?.stop();
  await admin.unsafe(`drop database if exists "${dbName}" with (force)`);
  await admin.end();
});

/** How a statement ended within `ms`: `ok`, its error code, or `hung`. */
function settled(pending: PromiseLike<unknown>, ms = 3000): Promise<string> {
  return Promise.race([
    Promise.resolve(pending).then(
      () => 'ok',
      (error: { code?: string }) => error.code ?? 'error',
    ),
    new Promise<string>((resolve) => setTimeout(resolve, ms, 'hung').unref()),
  ]);
}

const countOf = (outcomes: string[]) =>
  outcomes.reduce<Record<string, number>>((counts, outcome) => {
    counts[outcome] = (counts[outcome] ?? 0) + 1;
    return counts;
  }, {});

/**
 * 200 statements at once from a pool of 8 connections on the pooler's 2: drizzle's prepared select and raw selects of
 * a few texts.
 */
async function burst(handle: DbHandle): Promise<Record<string, number>> {
  const byId = handle.db
    .select({ id: member.id })
    .from(member)
    .where(eq(member.id, sql.placeholder('id')))
    .prepare('member_by_id');
  const raws = [1, 2, 3, 4].map((plus) =>
    rawSelect<{ n: number }>(handle.db, sql`select ${sql.placeholder('n')}::int + ${sql.raw(String(plus))} as n`),
  );
  const outcomes = await Promise.all(
    Array.from({ length: 200 }, (_, index) =>
      settled(index % 5 === 0 ? byId.execute({ id: index }) : raws[index % 4]!.execute({ n: index })),
    ),
  );
  return countOf(outcomes);
}

describe('named prepared statements through PgBouncer 1.18 in transaction mode (DB13)', () => {
  it('without the setting: statements prepared on one server connection are run on another; some fail (26000) or never settle', async () => {
    // How many go wrong depends on timing (on a quiet machine a round of 40 from 4 connections sometimes all
    // answered): up to three rounds, each on a fresh pool, until one does.
    const rounds: Array<Record<string, number>> = [];
    for (let round = 0; round < 3; round++) {
      const handle = createDb(pooledUrl, { max: 8 });
      try {
        rounds.push(await burst(handle));
      } finally {
        await handle.close(0);
      }
      if ((rounds.at(-1)?.ok ?? 0) < 200) break;
    }
    console.log('prepared statements through PgBouncer, 200 at once from 8 connections:', rounds);
    expect(rounds.at(-1)?.ok ?? 0).toBeLessThan(200);
  });

  it('with pooler: transaction every statement is unnamed and all 200 answer', async () => {
    const handle = createDb(pooledUrl, { max: 8, pooler: 'transaction' });
    try {
      for (let round = 0; round < 4; round++) expect(await burst(handle)).toEqual({ ok: 200 });
    } finally {
      await handle.close();
    }
  });
});

describe('the statement timeout behind the pooler (DB15)', () => {
  it('as a connection parameter PgBouncer refuses the connection', async () => {
    const handle = createDb(pooledUrl, { max: 1, statementTimeoutMs: 1500, connectTimeout: 3 });
    try {
      await expect(handle.sql`select 1`).rejects.toMatchObject({
        code: '08P01',
        message: 'unsupported startup parameter: statement_timeout',
      });
    } finally {
      await handle.close(0);
    }
  });

  it('with pooler: transaction it is set locally in each transaction and left nowhere else', async () => {
    const handle = createDb(pooledUrl, { max: 2, statementTimeoutMs: 1500, pooler: 'transaction' });
    const other = postgres(pooledUrl, { max: 2, prepare: false, onnotice: () => {} });
    try {
      const inside = await handle.db.transaction(async (tx) => {
        const [row] = await tx.execute<{ statement_timeout: string }>(sql`show statement_timeout`);
        return row?.statement_timeout;
      });
      expect(inside).toBe('1500ms');
      // A statement over it is cancelled (57014) inside a transaction.
      await expect(handle.db.transaction((tx) => tx.execute(sql`select pg_sleep(3)`))).rejects.toMatchObject({
        cause: { code: '57014' },
      });
      // Outside a transaction, and on the same server connections for another client: the server's default.
      const outside = await Promise.all(
        Array.from({ length: 6 }, () => other<{ statement_timeout: string }[]>`show statement_timeout`),
      );
      expect(new Set(outside.map(([row]) => row?.statement_timeout))).toEqual(new Set(['0']));
    } finally {
      await Promise.all([handle.close(), other.end()]);
    }
  });
});

describe('session state does not leak between transactions (DB16)', () => {
  /** Two clients of one connection each, on a pooler of one server connection: whatever one leaves, the other sees. */
  async function twoClients(run: (a: postgres.Sql, b: postgres.Sql, url: string) => Promise<void>): Promise<void> {
    const single = await startPgBouncer({ poolSize: 1 });
    const url = single.urlFor(directUrl);
    const a = postgres(url, { max: 1, prepare: false, onnotice: () => {} });
    const b = postgres(url, { max: 1, prepare: false, onnotice: () => {} });
    try {
      await run(a, b, url);
    } finally {
      await Promise.all([a.end(), b.end()]);
      await single.stop();
    }
  }

  const advisoryLocksHeld = async (client: postgres.Sql) =>
    (
      await client<{ n: number }[]>`
        select count(*)::int as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`
    )[0]?.n;

  it('a session SET and a session advisory lock are left to the next client; SET LOCAL and transaction locks are not', async () => {
    await twoClients(async (a, b) => {
      // What the rules forbid, shown: a session's SET and lock outlive the client's use of the server connection.
      await a`set statement_timeout = 1234`;
      expect((await b`show statement_timeout`)[0]?.statement_timeout).toBe('1234ms');
      await a`reset statement_timeout`;
      await a`select pg_advisory_lock(4242)`;
      expect(await advisoryLocksHeld(b)).toBe(1);
      expect((await b`select pg_advisory_unlock(4242) as released`)[0]?.released).toBe(true);
      // What the code does: SET LOCAL and pg_advisory_xact_lock end with the transaction.
      await a.begin(async (tx) => {
        await tx`set local statement_timeout = 4321`;
        await tx`select pg_advisory_xact_lock(4242)`;
        expect((await tx`show statement_timeout`)[0]?.statement_timeout).toBe('4321ms');
      });
      expect((await b`show statement_timeout`)[0]?.statement_timeout).toBe('0');
      expect(await advisoryLocksHeld(b)).toBe(0);
    });
  });

  it("the app's transactions (createDb with pooler: transaction) leave no setting or lock on the server connection", async () => {
    await twoClients(async (_a, b, url) => {
      const handle = createDb(url, { max: 1, statementTimeoutMs: 2500, pooler: 'transaction' });
      try {
        await handle.db.transaction(async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(${4243}, ${1})`);
        });
        expect((await b`show statement_timeout`)[0]?.statement_timeout).toBe('0');
        expect(await advisoryLocksHeld(b)).toBe(0);
      } finally {
        await handle.close();
      }
    });
  });
});

describe('LISTEN on the direct URL (DB14)', () => {
  it('hears what is notified through the pooler', async () => {
    const handle = createDb(pooledUrl, { max: 2, pooler: 'transaction', directUrl });
    try {
      expect(handle.listener).not.toBe(handle.sql);
      const heard: string[] = [];
      const listening = await handle.listener.listen('nestegg_pooler_test', (payload) => heard.push(payload));
      // The listening session is on PostgreSQL itself, not on one of the pooler's server connections.
      const [row] = await admin<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity where datname = ${dbName} and query ilike 'listen%'`;
      expect(row?.n).toBe(1);
      for (let index = 0; index < 5; index++) {
        await handle.db.transaction((tx) => tx.execute(sql`select pg_notify('nestegg_pooler_test', ${String(index)})`));
      }
      const deadline = Date.now() + 3000;
      while (heard.length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toEqual(['0', '1', '2', '3', '4']);
      await listening.unlisten();
    } finally {
      await handle.close();
    }
  });
});

describe('the migrate command on DATABASE_DIRECT_URL (DB14)', () => {
  const run = (env: Record<string, string>) =>
    promisify(execFile)(process.execPath, ['--conditions=@nestegg/source', '--import', 'tsx', 'src/cli/migrate.ts'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { PATH: process.env.PATH ?? '', ...env },
    });

  it('migrates PostgreSQL itself when DATABASE_URL is the pooler, and names the variable it read', async () => {
    const { stdout } = await run({
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/unreachable',
      DATABASE_DIRECT_URL: directUrl,
    });
    expect(stdout).toContain('[db:migrate] migrations applied');
    await expect(run({ DATABASE_URL: pooledUrl, DATABASE_DIRECT_URL: 'db.internal:5432' })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('[db:migrate] DATABASE_DIRECT_URL: '),
    });
  });
});
