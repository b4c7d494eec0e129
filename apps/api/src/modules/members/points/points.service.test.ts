import { createDb, type DbHandle, member, pointHistory } from '@nestegg/db';
import { useTestDatabase } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DailyCap, DailyCaps, monthCompleteReason, PointReason, PointsService } from './points.service.js';

describe('points service', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  const points = new PointsService({ timeZone: 'UTC' });

  beforeAll(() => {
    handle = createDb(database.current.url, { max: 12 });
  });
  afterAll(async () => {
    await handle.close();
  });

  async function newMember(balance = 0) {
    const [row] = await handle.db
      .insert(member)
      .values({ email: `p${Math.random()}@nestegg.test`, displayName: 'P', points: balance })
      .returning();
    return row!.id;
  }

  const award = (memberId: number, reason: string, amount = 10, dailyCap: DailyCap = DailyCaps.WRITING) =>
    handle.db.transaction((tx) => points.change(tx, { memberId, amount, reason, dailyCap }));

  it('applies a daily cap shared by posts and comments, the last award only up to the cap', async () => {
    const memberId = await newMember();
    const applied = [];
    for (const reason of [
      'POST_WRITTEN',
      'COMMENT_WRITTEN',
      'POST_WRITTEN',
      'COMMENT_WRITTEN',
      'POST_WRITTEN',
      'POST_WRITTEN',
    ]) {
      applied.push(await award(memberId, reason));
    }
    expect(applied).toEqual([10, 10, 10, 10, 10, 0]);
    expect(await points.balance(handle.db, memberId)).toBe(50);
    await handle.db.update(member).set({ points: 0 }).where(eq(member.id, memberId));
    await handle.db.delete(pointHistory).where(eq(pointHistory.memberId, memberId));
    await award(memberId, PointReason.POST_WRITTEN, 45);
    expect(await award(memberId, PointReason.POST_WRITTEN)).toBe(5);
  });

  it('never lets concurrent awards pass the cap', async () => {
    const memberId = await newMember();
    await Promise.all(
      Array.from({ length: 20 }, () => award(memberId, PointReason.UP_VOTE_GIVEN, 1, DailyCaps.UP_VOTES_GIVEN)),
    );
    expect(await points.balance(handle.db, memberId)).toBe(10);
    const rows = await handle.db.select().from(pointHistory).where(eq(pointHistory.memberId, memberId));
    expect(rows.reduce((sum, row) => sum + row.amount, 0)).toBe(10);
  });

  it('floors the balance at 0 and records only what was applied', async () => {
    const memberId = await newMember(1);
    expect(
      await handle.db.transaction((tx) =>
        points.change(tx, { memberId, amount: -5, reason: PointReason.DOWN_VOTE_RECEIVED }),
      ),
    ).toBe(-1);
    expect(
      await handle.db.transaction((tx) =>
        points.change(tx, { memberId, amount: -1, reason: PointReason.UP_VOTE_CANCELLED }),
      ),
    ).toBe(0);
    expect(await points.balance(handle.db, memberId)).toBe(0);
    const rows = await handle.db.select().from(pointHistory).where(eq(pointHistory.memberId, memberId));
    expect(rows.map((row) => row.amount)).toEqual([-1]);
  });

  it('counts only today toward a cap', async () => {
    const memberId = await newMember();
    await handle.db.insert(pointHistory).values({
      memberId,
      amount: 50,
      reason: PointReason.UP_VOTE_RECEIVED,
      createdAt: new Date(Date.now() - 2 * 24 * 3600_000),
    });
    expect(await award(memberId, PointReason.UP_VOTE_RECEIVED, 5, DailyCaps.UP_VOTES_RECEIVED)).toBe(5);
  });

  it('knows once-only rewards', async () => {
    const memberId = await newMember();
    const reason = monthCompleteReason(2026, 3);
    expect(reason).toBe('MONTH_COMPLETE_202603');
    expect(await points.hasReceived(handle.db, memberId, reason)).toBe(false);
    await handle.db.transaction((tx) => points.change(tx, { memberId, amount: 37, reason }));
    expect(await points.hasReceived(handle.db, memberId, reason)).toBe(true);
  });
});
