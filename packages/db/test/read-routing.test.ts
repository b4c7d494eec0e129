import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { pgTable, text } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle, rawSelect, routedReader, runWithReadTarget } from '../src/index';

/**
 * Decision DB20/DB25: `routedReader` sends each statement to the read target in force, else to the primary, and runs
 * a statement a replica could not run again on the primary. Two databases stand in for a primary and a replica (each
 * says which it is); a third URL has nothing listening.
 */
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const suffix = randomBytes(6).toString('hex');
const names = { primary: `nestegg_db_read_primary_${suffix}`, replica: `nestegg_db_read_replica_${suffix}` };
const urlOf = (name: string) => Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
const which = pgTable('which', { name: text('name').notNull() });

let admin: postgres.Sql;
let primary: DbHandle;
let replica: DbHandle;
let dead: DbHandle;

beforeAll(async () => {
  admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  for (const [role, name] of Object.entries(names)) {
    await admin.unsafe(`create database "${name}"`);
    const setup = postgres(urlOf(name), { max: 1, onnotice: () => {} });
    await setup`create table which (name text not null)`;
    await setup`insert into which values (${role})`;
    await setup.end();
  }
  primary = createDb(urlOf(names.primary), { max: 2 });
  replica = createDb(urlOf(names.replica), { max: 2 });
  // Port 1: refused at once.
  dead = createDb('postgres://postgres@127.0.0.1:1/none', { max: 1, connectTimeout: 1 });
});
afterAll(async () => {
  await Promise.all([primary.close(), replica.close(), dead.close()]);
  for (const name of Object.values(names)) await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

describe('routedReader', () => {
  it('follows the read target of each execution: prepared statements, rawSelect and execute alike', async () => {
    const reader = routedReader(primary.db);
    const prepared = reader.select().from(which).prepare('which_one');
    const raw = rawSelect<{ name: string }>(reader, sql`select name from which`);
    const read = async () => [
      (await prepared.execute())[0]?.name,
      (await raw.execute())[0]?.name,
      ((await reader.execute(sql`select name from which`)) as unknown as { name: string }[])[0]?.name,
    ];
    expect(await read()).toEqual(['primary', 'primary', 'primary']);
    expect(await runWithReadTarget(replica.db, read)).toEqual(['replica', 'replica', 'replica']);
    expect(await runWithReadTarget(undefined, read)).toEqual(['primary', 'primary', 'primary']);
  });

  it('runs a statement the replica could not run again on the primary, and says so', async () => {
    const failures: unknown[] = [];
    const reader = routedReader(primary.db, (target, error) => {
      expect(target).toBe(dead.db);
      failures.push(error);
    });
    // Awaited inside: a query builder runs when awaited, under the target in force then.
    const rows = await runWithReadTarget(dead.db, async () => await reader.select().from(which));
    expect(rows).toEqual([{ name: 'primary' }]);
    expect(failures).toHaveLength(1);
  });

  it('passes a statement error on (no retry): only unavailability moves a read', async () => {
    const failures: unknown[] = [];
    const reader = routedReader(primary.db, (_target, error) => failures.push(error));
    await expect(
      runWithReadTarget(replica.db, () => reader.execute(sql`select * from no_such_table`)),
    ).rejects.toMatchObject({ cause: { code: '42P01' } });
    expect(failures).toEqual([]);
  });
});
