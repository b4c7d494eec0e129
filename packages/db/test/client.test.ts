import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle, member } from '../src/index';
import { migrateDatabase } from '../src/migrate';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `nestegg_db_client_${randomBytes(6).toString('hex')}`;
const url = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
let admin: postgres.Sql;

beforeAll(async () => {
  admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  await migrateDatabase(url);
});
afterAll(async () => {
  await admin.unsafe(`drop database if exists "${dbName}" with (force)`);
  await admin.end();
});

async function preparedStatements(handle: DbHandle): Promise<string[]> {
  const rows = await handle.db.execute<{ statement: string }>(
    (await import('drizzle-orm')).sql`select statement from pg_prepared_statements`,
  );
  return rows.map((row) => row.statement);
}

describe('createDb', () => {
  it('prepares every drizzle statement, in and out of transactions', async () => {
    const handle = createDb(url, { max: 1 });
    try {
      await handle.db.select().from(member).where(eq(member.id, 1));
      await handle.db.transaction(async (tx) => {
        await tx.select({ id: member.id }).from(member).where(eq(member.email, 'x@y'));
        await tx.transaction(async (inner) =>
          inner.select({ name: member.displayName }).from(member).where(eq(member.id, 2)),
        );
      });
      const statements = await preparedStatements(handle);
      expect(statements.some((text) => /from "member" where "member"\."id" = \$1/.test(text))).toBe(true);
      expect(statements.some((text) => /where "member"\."email" = \$1/.test(text))).toBe(true);
      expect(statements.some((text) => /select "display_name" from "member"/.test(text))).toBe(true);
    } finally {
      await handle.close();
    }
  });

  it('prepares nothing when told not to (behind a transaction-mode pooler)', async () => {
    const handle = createDb(url, { max: 1, prepare: false });
    try {
      await handle.db.select().from(member).where(eq(member.id, 1));
      expect((await preparedStatements(handle)).filter((text) => text.includes('"member"'))).toEqual([]);
    } finally {
      await handle.close();
    }
  });
});
