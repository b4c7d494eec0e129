import { account, accountEntry, createDb, type DbHandle, member, type NewRecurring, recurring } from '@nestegg/db';
import { useTestDatabase } from '@nestegg/testing';
import { asc, eq } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from '../env.js';
import { POSTING_BATCH_SIZE, postDueRecurrings, recurringPostingJob } from './recurring-posting.js';

describe('posting recurring transactions', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  /** A second connection pool: another worker replica. */
  let replica: DbHandle;
  beforeAll(() => {
    handle = createDb(database.current.url, { max: 4 });
    replica = createDb(database.current.url, { max: 4 });
  });
  afterAll(async () => {
    await handle.close();
    await replica.close();
  });

  let members = 0;
  async function setUp(rules: Array<Partial<NewRecurring>>) {
    const { db } = handle;
    members += 1;
    const [owner] = await db
      .insert(member)
      .values({ email: `recurring-${members}@nestegg.test`, displayName: 'Owner' })
      .returning();
    const [wallet] = await db
      .insert(account)
      .values({ memberId: owner!.id, name: 'Main', type: 'BANK', openingBalance: 1_000_000 })
      .returning();
    const rows = await db
      .insert(recurring)
      .values(
        rules.map((rule) => ({
          memberId: owner!.id,
          accountId: wallet!.id,
          name: 'Rent',
          type: 'EXPENSE' as const,
          amount: 100_000,
          frequency: 'MONTHLY' as const,
          dayOfMonth: 5,
          startDate: '2026-09-01',
          ...rule,
        })),
      )
      .returning();
    return { memberId: owner!.id, walletId: wallet!.id, ids: rows.map((row) => row.id) };
  }

  const entriesOf = (memberId: number) =>
    handle.db
      .select()
      .from(accountEntry)
      .where(eq(accountEntry.memberId, memberId))
      .orderBy(asc(accountEntry.recurringId), asc(accountEntry.occurrenceDate));
  const recurringRow = async (id: number) => (await handle.db.select().from(recurring).where(eq(recurring.id, id)))[0]!;
  const balanceOf = async (walletId: number) =>
    (await handle.db.select().from(account).where(eq(account.id, walletId)))[0]!.balance;

  it('posts every occurrence up to today as confirmed entries, once however often it runs', async () => {
    const { memberId, walletId, ids } = await setUp([{ memo: null, category: 'Housing' }]);
    await postDueRecurrings(handle.db, '2026-11-22');
    const entries = await entriesOf(memberId);
    expect(entries.map((entry) => entry.entryDate)).toEqual(['2026-09-05', '2026-10-05', '2026-11-05']);
    expect(entries[0]).toMatchObject({
      accountId: walletId,
      type: 'EXPENSE',
      amount: 100_000,
      memo: 'Rent',
      category: 'Housing',
      pending: false,
      recurringId: ids[0],
      occurrenceDate: '2026-09-05',
    });
    expect((await recurringRow(ids[0]!)).lastRunOn).toBe('2026-11-05');
    // The balance trigger ran: confirmed expenses left the wallet.
    expect(await balanceOf(walletId)).toBe(1_000_000 - 3 * 100_000);

    await postDueRecurrings(handle.db, '2026-11-22');
    await postDueRecurrings(handle.db, '2026-12-04');
    expect(await entriesOf(memberId)).toHaveLength(3);
    await postDueRecurrings(handle.db, '2026-12-05');
    expect(await entriesOf(memberId)).toHaveLength(4);
    expect(await balanceOf(walletId)).toBe(1_000_000 - 4 * 100_000);
  });

  it('a member whose postings would add up past 2^53 − 1 gets none of them; the others are posted (FI2)', async () => {
    const big = await setUp([{ type: 'INCOME', amount: Math.floor(Number.MAX_SAFE_INTEGER / 2) }]);
    const fine = await setUp([{}]);
    await postDueRecurrings(handle.db, '2026-11-22');
    expect(await entriesOf(big.memberId)).toHaveLength(0);
    expect((await recurringRow(big.ids[0]!)).lastRunOn).toBe('2026-11-05');
    expect(await entriesOf(fine.memberId)).toHaveLength(3);
  });

  it('catches up the occurrences missed while the worker was down', async () => {
    // Weekly on Mondays, last posted Monday 2 November; the worker comes back on Monday 23 November.
    const { memberId } = await setUp([
      { frequency: 'WEEKLY', dayOfWeek: 1, dayOfMonth: null, lastRunOn: '2026-11-02' },
    ]);
    await postDueRecurrings(handle.db, '2026-11-23');
    expect((await entriesOf(memberId)).map((entry) => entry.entryDate)).toEqual([
      '2026-11-09',
      '2026-11-16',
      '2026-11-23',
    ]);
  });

  it('catches up at most 366 days', async () => {
    const { memberId } = await setUp([{ dayOfMonth: 1, startDate: '2023-01-01' }]);
    await postDueRecurrings(handle.db, '2026-11-22');
    const days = (await entriesOf(memberId)).map((entry) => entry.entryDate);
    expect(days).toHaveLength(12);
    expect(days[0]).toBe('2025-12-01');
    expect(days.at(-1)).toBe('2026-11-01');
  });

  it('does not post again what a crashed or parallel run already posted', async () => {
    const { memberId, walletId, ids } = await setUp([{}]);
    // Posted by another run whose `last_run_on` update never landed.
    await handle.db.insert(accountEntry).values({
      memberId,
      accountId: walletId,
      type: 'EXPENSE',
      amount: 100_000,
      entryDate: '2026-10-05',
      recurringId: ids[0],
      occurrenceDate: '2026-10-05',
    });
    await postDueRecurrings(handle.db, '2026-11-22');
    expect((await entriesOf(memberId)).map((entry) => entry.occurrenceDate)).toEqual([
      '2026-09-05',
      '2026-10-05',
      '2026-11-05',
    ]);
  });

  it('two replicas running at once post each occurrence exactly once, across several batches', async () => {
    const count = POSTING_BATCH_SIZE + 20;
    const { memberId } = await setUp(Array.from({ length: count }, () => ({})));
    await Promise.all([postDueRecurrings(handle.db, '2026-11-22'), postDueRecurrings(replica.db, '2026-11-22')]);
    const entries = await entriesOf(memberId);
    expect(entries).toHaveLength(3 * count);
    expect(new Set(entries.map((entry) => `${entry.recurringId}/${entry.occurrenceDate}`)).size).toBe(3 * count);
  });

  it('stops at the end date, posts nothing while paused or before the start', async () => {
    const { memberId, ids } = await setUp([
      { startDate: '2026-08-01', endDate: '2026-10-10' },
      { active: false },
      { startDate: '2026-12-01' },
    ]);
    await postDueRecurrings(handle.db, '2026-11-22');
    const entries = await entriesOf(memberId);
    expect(entries.map((entry) => [entry.recurringId, entry.entryDate])).toEqual([
      [ids[0], '2026-08-05'],
      [ids[0], '2026-09-05'],
      [ids[0], '2026-10-05'],
    ]);
    await postDueRecurrings(handle.db, '2027-03-01');
    const later = await entriesOf(memberId);
    expect(later.filter((entry) => entry.recurringId === ids[0])).toHaveLength(3);
    expect(later.filter((entry) => entry.recurringId === ids[1])).toHaveLength(0);
    expect(later.filter((entry) => entry.recurringId === ids[2]).map((entry) => entry.entryDate)).toEqual([
      '2026-12-05',
      '2027-01-05',
      '2027-02-05',
    ]);
  });

  it('posts without a wallet once the wallet was deleted', async () => {
    const { memberId, walletId } = await setUp([{ startDate: '2026-11-01' }]);
    await handle.db.delete(account).where(eq(account.id, walletId));
    await postDueRecurrings(handle.db, '2026-11-22');
    const entries = await entriesOf(memberId);
    expect(entries.map((entry) => [entry.entryDate, entry.accountId])).toEqual([['2026-11-05', null]]);
  });

  it('runs on the ledger calendar: the day in APP_TIMEZONE', async () => {
    const { memberId } = await setUp([{ dayOfMonth: 23, startDate: '2026-11-20' }]);
    const context = {
      db: handle.db,
      logger: pino({ level: 'silent' }),
      // 16:00 UTC on the 22nd is already the 23rd in Seoul.
      now: () => new Date('2026-11-22T16:00:00Z'),
      timeZone: 'Asia/Seoul',
    };
    const env = loadEnv({ DATABASE_URL: database.current.url });
    expect(await recurringPostingJob.run(context, env)).toMatchObject({ today: '2026-11-23' });
    expect((await entriesOf(memberId)).map((entry) => entry.entryDate)).toEqual(['2026-11-23']);
  });
});
