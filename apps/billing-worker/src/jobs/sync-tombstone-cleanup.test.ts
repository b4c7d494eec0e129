import { budget, createDb, type DbHandle, ledgerChange, member, memberChangeCounter } from '@nestegg/db';
import { useTestDatabase } from '@nestegg/testing';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneSyncTombstones } from './sync-tombstone-cleanup.js';

describe('clean-up of delta-sync tombstones', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  beforeAll(() => {
    handle = createDb(database.current.url, { max: 2 });
  });
  afterAll(async () => {
    await handle.close();
  });

  it('deletes tombstones older than the cutoff and raises the member pruned number to the highest removed', async () => {
    const { db } = handle;
    const [owner] = await db.insert(member).values({ email: 'sync@nestegg.test', displayName: 'Sync' }).returning();
    const memberId = owner!.id;
    const budgets = await db
      .insert(budget)
      .values(['a', 'b', 'c'].map((category) => ({ memberId, category, year: 2026, month: 11, amount: 1 })))
      .returning({ id: budget.id });
    const [old, recent, kept] = budgets.map((row) => row.id) as [number, number, number];
    await db.delete(budget).where(eq(budget.id, old));
    await db.delete(budget).where(eq(budget.id, recent));
    const tombstone = (id: number) => and(eq(ledgerChange.entity, 'budget'), eq(ledgerChange.entityId, id));
    await db.update(ledgerChange).set({ changedAt: sql`now() - interval '100 days'` }).where(tombstone(old));

    expect(await pruneSyncTombstones(db, new Date(Date.now() - 90 * 86_400_000))).toBe(1);

    const left = await db.select().from(ledgerChange).where(eq(ledgerChange.memberId, memberId));
    expect(left.map((row) => [row.entityId, row.deleted]).sort()).toEqual(
      [
        [recent, true],
        [kept, false],
      ].sort(),
    );
    const [counter] = await db.select().from(memberChangeCounter).where(eq(memberChangeCounter.memberId, memberId));
    // Three inserts (one statement: 1..3), then the deletions numbered 4 (old) and 5 (recent).
    expect(counter).toMatchObject({ seq: 5, prunedSeq: 4 });
  });
});
