import { randomBytes } from 'node:crypto';
import { desc, eq, lt, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle, member, rawSelect } from '../src/index';
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

  it('runs a raw select: the text drizzle builds, placeholders filled per call, rows as the driver reads them, prepared and gated', async () => {
    const handle = createDb(url, { max: 1, acquireTimeoutMs: 5000 });
    try {
      const created = await handle.db
        .insert(member)
        .values(
          [1, 2, 3].map((n) => ({
            email: `raw-${n}@nestegg.test`,
            displayName: `Raw ${n}`,
            provider: 'LOCAL' as const,
          })),
        )
        .returning({ id: member.id, createdAt: member.createdAt });
      const newest = rawSelect<{ id: number; display_name: string; created_at: string }>(
        handle.db,
        handle.db
          .select({ id: member.id, displayName: member.displayName, createdAt: member.createdAt })
          .from(member)
          .where(lt(member.id, sql.placeholder('before')))
          .orderBy(desc(member.id))
          .limit(sql.placeholder('limit')),
      );
      const below = created.at(-1)!.id;
      const rows = await newest.execute({ before: below, limit: 1 });
      expect(rows).toEqual([{ id: below - 1, display_name: 'Raw 2', created_at: expect.any(String) }]);
      expect(new Date(rows[0]!.created_at).getTime()).toBe(created[1]!.createdAt.getTime());
      expect((await newest.execute({ before: below, limit: 5 })).map((row) => row.display_name)).toEqual([
        'Raw 2',
        'Raw 1',
      ]);
      expect((await preparedStatements(handle)).some((text) => text.includes('"member"."id" < $1'))).toBe(true);
      // Or as the bytes PostgreSQL sent, column by column in select order.
      const [bytes] = await newest.buffers({ before: below, limit: 1 });
      expect(bytes!.map((column) => column?.toString())).toEqual([String(below - 1), 'Raw 2', rows[0]!.created_at]);
      expect(bytes!.every((column) => Buffer.isBuffer(column))).toBe(true);
      expect(handle.gate?.inUse).toBe(0);
    } finally {
      await handle.close();
    }
  });
});
