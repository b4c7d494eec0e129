import { createDb, type DbHandle, idempotencyKey, member } from '@nestegg/db';
import { useTestDatabase } from '@nestegg/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteOldIdempotencyKeys } from './idempotency-cleanup.js';

describe('clean-up of idempotency keys', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  beforeAll(() => {
    handle = createDb(database.current.url, { max: 2 });
  });
  afterAll(async () => {
    await handle.close();
  });

  it('deletes keys older than 48 hours only', async () => {
    const { db } = handle;
    const [owner] = await db.insert(member).values({ email: 'keys@nestegg.test', displayName: 'Keys' }).returning();
    const now = new Date('2026-11-22T03:00:00Z');
    const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3600_000);
    const key = (name: string, createdAt: Date) => ({
      memberId: owner!.id,
      route: 'POST /api/account/entries',
      key: name,
      requestHash: 'h',
      createdAt,
    });
    await db
      .insert(idempotencyKey)
      .values([key('old', hoursAgo(49)), key('day-old', hoursAgo(25)), key('fresh', hoursAgo(1))]);
    expect(await deleteOldIdempotencyKeys(db, now)).toBe(1);
    const left = await db.select({ key: idempotencyKey.key }).from(idempotencyKey);
    expect(left.map((row) => row.key).sort()).toEqual(['day-old', 'fresh']);
  });
});
