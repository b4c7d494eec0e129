import { authSession, createDb, type DbHandle, member } from '@nestegg/db';
import { useTestDatabase } from '@nestegg/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredSessions } from './session-cleanup.js';

describe('daily clean-up of expired session backups', () => {
  const database = useTestDatabase();
  let handle: DbHandle;

  beforeAll(() => {
    handle = createDb(database.current.url, { max: 2 });
  });
  afterAll(async () => {
    await handle.close();
  });

  it('deletes only rows expired over an hour ago, normal and rememberMe alike', async () => {
    const { db } = handle;
    const [owner] = await db.insert(member).values({ email: 'cleanup@nestegg.test', displayName: 'Owner' }).returning();
    const now = new Date('2026-11-22T03:00:00Z');
    const at = (hours: number) => new Date(now.getTime() + hours * 3600_000);
    const base = { memberId: owner!.id, displayName: 'Owner', plan: 'FREE' as const, role: 'USER' as const };
    await db.insert(authSession).values([
      { ...base, tokenHash: 'expired-normal', rememberMe: false, expiresAt: at(-2) },
      { ...base, tokenHash: 'just-expired', rememberMe: false, expiresAt: at(-0.5) },
      { ...base, tokenHash: 'expired-remember', rememberMe: true, expiresAt: at(-24 * 31) },
      { ...base, tokenHash: 'live-normal', rememberMe: false, expiresAt: at(2) },
      { ...base, tokenHash: 'live-remember', rememberMe: true, expiresAt: at(24 * 29) },
    ]);

    expect(await deleteExpiredSessions(db, now)).toBe(2);

    const left = await db.select({ tokenHash: authSession.tokenHash }).from(authSession);
    expect(left.map((row) => row.tokenHash).sort()).toEqual(['just-expired', 'live-normal', 'live-remember']);
  });
});
