import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { pgTable, serial, text } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CommitHook,
  createDb,
  type DbHandle,
  rawSelect,
  runWithCommitHook,
  runWithoutCommitHook,
} from '../src/index';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `nestegg_db_commit_hook_${randomBytes(6).toString('hex')}`;
const url = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
let admin: postgres.Sql;
let handle: DbHandle;

const probe = pgTable('hook_probe', { id: serial('id').primaryKey(), note: text('note').notNull() });

beforeAll(async () => {
  admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  handle = createDb(url, { max: 2 });
  await handle.sql`create table hook_probe (id serial primary key, note text not null)`;
  await handle.sql`create table hook_log (txid bigint not null, note text not null)`;
});
afterAll(async () => {
  await handle.close();
  await admin.unsafe(`drop database if exists "${dbName}" with (force)`);
  await admin.end();
});
beforeEach(async () => {
  await handle.sql`truncate hook_probe, hook_log`;
});

/** A hook that logs, in the transaction it runs in, that transaction's id; or throws when told to. */
function loggingHook(options: { fail?: boolean } = {}) {
  const hook = {
    active: true as boolean,
    calls: 0,
    async beforeCommit(tx: postgres.TransactionSql) {
      hook.calls += 1;
      await tx`insert into hook_log (txid, note) values (txid_current(), 'hook')`;
      if (options.fail) throw new Error('claim lost');
    },
  } satisfies CommitHook & { calls: number };
  return hook;
}

const notes = async () =>
  (await handle.sql<{ note: string }[]>`select note from hook_probe order by id`).map((r) => r.note);
const hookLog = async () => handle.sql<{ txid: string }[]>`select txid::text from hook_log`;

describe('commit hook', () => {
  it('runs last inside each transaction begun while it is active, once (savepoints included)', async () => {
    const hook = loggingHook();
    const txid = await runWithCommitHook(hook, () =>
      handle.db.transaction(async (tx) => {
        await tx.insert(probe).values({ note: 'a' });
        await tx.transaction(async (inner) => inner.insert(probe).values({ note: 'b' }));
        const [row] = await tx.execute<{ txid: string }>(sql`select txid_current()::text as txid`);
        return row!.txid;
      }),
    );
    expect(hook.calls).toBe(1);
    expect(await notes()).toEqual(['a', 'b']);
    expect((await hookLog()).map((row) => row.txid)).toEqual([txid]);
  });

  it('rolls the transaction back when it throws', async () => {
    const hook = loggingHook({ fail: true });
    await expect(
      runWithCommitHook(hook, () => handle.db.transaction(async (tx) => tx.insert(probe).values({ note: 'lost' }))),
    ).rejects.toThrow('claim lost');
    expect(await notes()).toEqual([]);
    expect(await hookLog()).toEqual([]);
  });

  it('wraps each auto-commit write in a transaction of its own that ends with it; reads are left alone', async () => {
    const hook = loggingHook();
    const [inserted, executed, read, cte] = await runWithCommitHook(hook, async () => [
      await handle.db.insert(probe).values({ note: 'builder' }).returning({ id: probe.id, note: probe.note }),
      await handle.db.execute<{ note: string }>(sql`insert into hook_probe (note) values ('raw') returning note`),
      await handle.db.select({ note: probe.note }).from(probe),
      await handle.db.execute<{ n: number }>(sql`with x as (select 1 as n) select n from x`),
    ]);
    expect(inserted).toEqual([{ id: expect.any(Number), note: 'builder' }]);
    expect([...executed]).toEqual([{ note: 'raw' }]);
    expect(read).toHaveLength(2);
    expect([...cte]).toEqual([{ n: 1 }]);
    expect(hook.calls).toBe(2);
    expect(await hookLog()).toHaveLength(2);
  });

  it('wraps a raw write asked for its bytes the same way', async () => {
    const hook = loggingHook();
    const insert = rawSelect(handle.db, sql`insert into hook_probe (note) values ('bytes') returning note`);
    const rows = await runWithCommitHook(hook, () => insert.buffers());
    expect(rows.map((row) => row.map((column) => column?.toString()))).toEqual([['bytes']]);
    expect(hook.calls).toBe(1);
    expect(await hookLog()).toHaveLength(1);
  });

  it('rolls an auto-commit write back when it throws', async () => {
    const hook = loggingHook({ fail: true });
    // Drizzle's builders run where they are awaited: inside the hook's context here. Drizzle reports a failed
    // statement as its own error, with the hook's error as the cause.
    const failure = await runWithCommitHook(hook, async () => {
      await handle.db.insert(probe).values({ note: 'lost' });
    }).catch((error: unknown) => error);
    expect((failure as Error).cause).toMatchObject({ message: 'claim lost' });
    expect(await notes()).toEqual([]);
  });

  it('does nothing once inactive, or where it is set aside', async () => {
    const hook = loggingHook();
    await runWithCommitHook(hook, async () => {
      await runWithoutCommitHook(async () => {
        await handle.db.insert(probe).values({ note: 'aside' });
      });
      hook.active = false;
      await handle.db.insert(probe).values({ note: 'after' });
      await handle.db.transaction(async (tx) => tx.insert(probe).values({ note: 'after-tx' }));
    });
    await handle.db.insert(probe).values({ note: 'outside' });
    expect(hook.calls).toBe(0);
    expect(await notes()).toEqual(['aside', 'after', 'after-tx', 'outside']);
  });
});
