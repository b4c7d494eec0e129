import type { CreateWalletRequest } from '@nestegg/contract';
import { account, accountEntry, schema, walletLoanHistory, walletValueHistory } from '@nestegg/db';
import { and, asc, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';
import { AccountNumberCipher } from './account-numbers.js';
import { WalletsService } from './wallets.service.js';

/** The test moves the clock: wallets are created and revalued on chosen days (noon in Seoul). */
const clock = { at: Date.parse('2026-03-01T03:00:00Z'), now: () => new Date(clock.at) };
const on = (day: string, time = '03:00:00') => {
  clock.at = Date.parse(`${day}T${time}Z`);
};
// Sessions opened on the first day must outlive the scenario's weeks.
const test = apiTest({ APP_TIMEZONE: 'Asia/Seoul', SESSION_TTL_HOURS: '720' }, { clock });

const create = async (caller: Caller, body: CreateWalletRequest) =>
  bodyOf(await caller.api.ledger.wallets.create({ body }), 201);

async function addEntries(
  app: FastifyInstance,
  memberId: number,
  entries: { accountId: number; type: 'INCOME' | 'EXPENSE'; amount: number; entryDate: string; pending?: boolean }[],
) {
  await app.db.insert(accountEntry).values(entries.map((entry) => ({ memberId, pending: false, ...entry })));
}

/**
 * The scenario (today: Wednesday 2026-03-18):
 * - Main (BANK), created 03-03 with 1,000,000: +500,000 on 02-20, −200,000 on 03-10, +100,000 on 03-17, a pending
 *   −999 on 03-17 (never counts) and −50,000 dated 03-25 (in the balance, not yet in the trend).
 * - Overdraft (MINUS), created 03-01: −300,000 on 03-05. Card (CARD), created 03-01: −40,000 on 03-16.
 * - Pension (manual): 3,000,000 on 03-04, 3,100,000 then 3,150,000 on 03-12, 3,200,000 on 03-18.
 * - Savings, created 03-16 with 700,000 (its opening balance counts from that day).
 * - Mortgage (LOAN): 1,200,000 at 12 % over 12 months, equal payments, from 02-10: 1,105,381 owed after the
 *   first payment on 03-10, created today (a loan follows its own schedule).
 */
async function scenario(app: FastifyInstance, member: Caller) {
  on('2026-03-01');
  const overdraft = await create(member, { name: 'Overdraft', type: 'MINUS' });
  const card = await create(member, { name: 'Card', type: 'CARD', cardCompany: 'Hana' });
  on('2026-03-03');
  const main = await create(member, { name: 'Main', type: 'BANK', openingBalance: 1_000_000 });
  on('2026-03-04');
  const pension = await create(member, {
    name: 'Pension',
    type: 'PENSION',
    manualValuation: true,
    currentValue: 3_000_000,
  });
  on('2026-03-12');
  const revalue = async (currentValue: number) =>
    bodyOf(await member.api.ledger.wallets.update({ params: { id: pension.id }, body: { currentValue } }), 200);
  await revalue(3_100_000);
  on('2026-03-12', '14:00:00'); // 23:00 in Seoul: the same day, its last value wins
  await revalue(3_150_000);
  on('2026-03-13');
  bodyOf(await member.api.ledger.wallets.update({ params: { id: pension.id }, body: { name: 'Pension fund' } }), 200);
  on('2026-03-16');
  await create(member, { name: 'Savings', type: 'SAVINGS', openingBalance: 700_000 });
  on('2026-03-18');
  await revalue(3_200_000);
  await create(member, {
    name: 'Mortgage',
    type: 'LOAN',
    loanAmount: 1_200_000,
    loanRate: '12',
    loanMethod: 'EQUAL_PAYMENT',
    loanMonths: 12,
    loanStart: '2026-02-10',
  });
  await addEntries(app, member.id, [
    { accountId: main.id, type: 'INCOME', amount: 500_000, entryDate: '2026-02-20' },
    { accountId: main.id, type: 'EXPENSE', amount: 200_000, entryDate: '2026-03-10' },
    { accountId: main.id, type: 'INCOME', amount: 100_000, entryDate: '2026-03-17' },
    { accountId: main.id, type: 'EXPENSE', amount: 999, entryDate: '2026-03-17', pending: true },
    { accountId: main.id, type: 'EXPENSE', amount: 50_000, entryDate: '2026-03-25' },
    { accountId: overdraft.id, type: 'EXPENSE', amount: 300_000, entryDate: '2026-03-05' },
    { accountId: card.id, type: 'EXPENSE', amount: 40_000, entryDate: '2026-03-16' },
  ]);
  return { pension };
}

const point = (start: string, assets: number, liabilities: number) => ({
  start,
  assets,
  liabilities,
  netWorth: assets - liabilities,
});

describe('net worth', () => {
  test('now: wallet values split into assets and liabilities, and per type', async ({ app, premium }) => {
    await scenario(app, premium);
    expect(bodyOf(await premium.api.ledger.wallets.netWorth(), 200)).toEqual({
      asOf: '2026-03-18',
      // Main 1,350,000 + Pension 3,200,000 + Savings 700,000.
      assets: 5_250_000,
      // Mortgage 1,105,381 + Overdraft 300,000 + Card 40,000.
      liabilities: 1_445_381,
      netWorth: 3_804_619,
      byType: [
        { type: 'BANK', amount: 1_350_000 },
        { type: 'CARD', amount: -40_000 },
        { type: 'SAVINGS', amount: 700_000 },
        { type: 'PENSION', amount: 3_200_000 },
        { type: 'LOAN', amount: -1_105_381 },
        { type: 'MINUS', amount: -300_000 },
      ],
    });
  });

  test('weekly trend: each Monday-started week at its end, the current one today', async ({ app, premium }) => {
    await scenario(app, premium);
    const trend = bodyOf(await premium.api.ledger.wallets.netWorthTrend({ query: { unit: 'WEEK', weeks: 3 } }), 200);
    expect(trend).toEqual({
      unit: 'WEEK',
      points: [
        // 03-08: Main 1,500,000, Pension 3,000,000 | Mortgage 1,200,000, Overdraft 300,000.
        point('2026-03-02', 4_500_000, 1_500_000),
        // 03-15: Main 1,300,000, Pension 3,150,000 | Mortgage 1,105,381, Overdraft 300,000.
        point('2026-03-09', 4_450_000, 1_405_381),
        // Today: Main 1,400,000, Pension 3,200,000, Savings 700,000 | Mortgage, Overdraft, Card 40,000.
        point('2026-03-16', 5_300_000, 1_445_381),
      ],
    });
    const byDefault = bodyOf(await premium.api.ledger.wallets.netWorthTrend({ query: { unit: 'WEEK' } }), 200);
    expect(byDefault.points).toHaveLength(13);
    expect(byDefault.points[0]!.start).toBe('2025-12-22');
    expect(byDefault.points.at(-1)).toEqual(trend.points.at(-1));
  });

  test('monthly trend by default: each calendar month at its end', async ({ app, premium }) => {
    await scenario(app, premium);
    const trend = bodyOf(await premium.api.ledger.wallets.netWorthTrend({ query: { months: 3 } }), 200);
    expect(trend).toEqual({
      unit: 'MONTH',
      points: [
        point('2026-01-01', 0, 0),
        // 02-28: Main's +500,000 entry (before Main was created: entries count on their own date) | Mortgage.
        point('2026-02-01', 500_000, 1_200_000),
        point('2026-03-01', 5_300_000, 1_445_381),
      ],
    });
    const byDefault = bodyOf(await premium.api.ledger.wallets.netWorthTrend({ query: {} }), 200);
    expect(byDefault.unit).toBe('MONTH');
    expect(byDefault.points.map((one) => one.start)).toEqual([
      '2025-04-01',
      '2025-05-01',
      '2025-06-01',
      '2025-07-01',
      '2025-08-01',
      '2025-09-01',
      '2025-10-01',
      '2025-11-01',
      '2025-12-01',
      '2026-01-01',
      '2026-02-01',
      '2026-03-01',
    ]);
  });

  test('manual values keep one row per wallet and day, the last of the day', async ({ app, premium }) => {
    const { pension } = await scenario(app, premium);
    const rows = await app.db
      .select({ day: walletValueHistory.day, value: walletValueHistory.value })
      .from(walletValueHistory)
      .where(eq(walletValueHistory.accountId, pension.id))
      .orderBy(asc(walletValueHistory.day));
    expect(rows).toEqual([
      { day: '2026-03-04', value: 3_000_000 },
      { day: '2026-03-12', value: 3_150_000 },
      { day: '2026-03-18', value: 3_200_000 },
    ]);
  });

  test("a loan's past keeps the terms of then: changing them moves today's point only", async ({ app, premium }) => {
    const weeks = async () =>
      bodyOf(await premium.api.ledger.wallets.netWorthTrend({ query: { unit: 'WEEK', weeks: 3 } }), 200).points;
    const change = async (body: Parameters<typeof premium.api.ledger.wallets.update>[0]['body']) =>
      bodyOf(await premium.api.ledger.wallets.update({ params: { id: mortgage.id }, body }), 200);
    on('2026-03-02');
    // 1,200,000 at 12 % over 12 months from 02-10, equal payments: 1,105,381 owed after the payment of 03-10.
    const mortgage = await create(premium, {
      name: 'Mortgage',
      type: 'LOAN',
      loanAmount: 1_200_000,
      loanRate: '12',
      loanMethod: 'EQUAL_PAYMENT',
      loanMonths: 12,
      loanStart: '2026-02-10',
    });
    on('2026-03-11');
    await change({ loanMethod: 'EQUAL_PRINCIPAL' }); // 1,100,000 owed after the first payment
    on('2026-03-13');
    await change({ name: 'Home loan' }); // not a term: nothing recorded
    on('2026-03-18');
    const before = await weeks();
    expect(before).toEqual([
      point('2026-03-02', 0, 1_200_000),
      point('2026-03-09', 0, 1_100_000),
      point('2026-03-16', 0, 1_100_000),
    ]);

    await change({ loanAmount: 2_400_000 });
    on('2026-03-18', '14:00:00'); // 23:00 in Seoul: the same day, its last terms win
    await change({ loanMethod: 'BULLET' });
    expect(await weeks()).toEqual([...before.slice(0, 2), point('2026-03-16', 0, 2_400_000)]);
    expect(bodyOf(await premium.api.ledger.wallets.netWorth(), 200)).toMatchObject({ liabilities: 2_400_000 });

    const rows = await app.db
      .select({
        validFrom: walletLoanHistory.validFrom,
        loanAmount: walletLoanHistory.loanAmount,
        loanMethod: walletLoanHistory.loanMethod,
      })
      .from(walletLoanHistory)
      .where(and(eq(walletLoanHistory.memberId, premium.id), eq(walletLoanHistory.accountId, mortgage.id)))
      .orderBy(asc(walletLoanHistory.validFrom));
    expect(rows).toEqual([
      { validFrom: '2026-03-02', loanAmount: 1_200_000, loanMethod: 'EQUAL_PAYMENT' },
      { validFrom: '2026-03-11', loanAmount: 1_200_000, loanMethod: 'EQUAL_PRINCIPAL' },
      { validFrom: '2026-03-18', loanAmount: 2_400_000, loanMethod: 'BULLET' },
    ]);
  });

  test('a loan entered today with an old start shows its past; one without recorded terms uses its own', async ({
    app,
    premium,
  }) => {
    on('2026-03-18');
    // 2,400,000 over 24 months from 2025-03-10, equal principal: 100,000 repaid on the 10th of each month.
    await create(premium, {
      name: 'Car loan',
      type: 'LOAN',
      loanAmount: 2_400_000,
      loanRate: '5.5',
      loanMethod: 'EQUAL_PRINCIPAL',
      loanMonths: 24,
      loanStart: '2025-03-10',
    });
    const months = async () =>
      bodyOf(await premium.api.ledger.wallets.netWorthTrend({ query: { unit: 'MONTH', months: 3 } }), 200).points;
    // 10 payments by 01-31, 11 by 02-28, 12 by today.
    expect(await months()).toEqual([
      point('2026-01-01', 0, 1_400_000),
      point('2026-02-01', 0, 1_300_000),
      point('2026-03-01', 0, 1_200_000),
    ]);

    // A loan wallet with no recorded terms (say, written before they were recorded): its current terms throughout.
    await app.db.insert(account).values({
      memberId: premium.id,
      name: 'Old loan',
      type: 'LOAN',
      loanAmount: 1_000_000,
      loanMethod: 'BULLET',
      loanMonths: 24,
      loanStart: '2026-02-01',
    });
    expect(await months()).toEqual([
      point('2026-01-01', 0, 1_400_000),
      point('2026-02-01', 0, 2_300_000),
      point('2026-03-01', 0, 2_200_000),
    ]);
  });

  test("weeks and days follow the service's time zone", async ({ premium }) => {
    on('2026-03-15', '16:00:00'); // Sunday 16:00 UTC is Monday 01:00 in Seoul
    await create(premium, { name: 'Cash', type: 'CASH', openingBalance: 10 });
    const trend = bodyOf(await premium.api.ledger.wallets.netWorthTrend({ query: { unit: 'WEEK', weeks: 2 } }), 200);
    expect(trend.points).toEqual([point('2026-03-09', 0, 0), point('2026-03-16', 10, 0)]);
    expect(bodyOf(await premium.api.ledger.wallets.netWorth(), 200).asOf).toBe('2026-03-16');
  });

  test('costs a bounded number of statements whatever the number of points', async ({ app, premium }) => {
    await scenario(app, premium);
    let statements = 0;
    // Counted where every statement goes, drizzle's and raw selects' alike: the driver's `unsafe`.
    const countingClient = new Proxy(app.sql, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property !== 'unsafe' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          statements += 1;
          return value.apply(target, args);
        };
      },
    });
    const counted = drizzle(countingClient, { schema });
    const service = new WalletsService({
      db: counted,
      reader: counted,
      clock,
      accountNumbers: new AccountNumberCipher({ keys: [], currentKeyId: null }),
      timeZone: 'Asia/Seoul',
    });
    const countOf = async (run: () => Promise<unknown>) => {
      statements = 0;
      await run();
      return statements;
    };
    expect(await countOf(() => service.netWorth(premium.id))).toBe(1);
    for (const query of [
      { unit: 'WEEK', weeks: 1, months: 12 },
      { unit: 'WEEK', weeks: 104, months: 12 },
      { unit: 'MONTH', weeks: 13, months: 1 },
      { unit: 'MONTH', weeks: 13, months: 120 },
    ] as const) {
      expect(await countOf(() => service.netWorthTrend(premium.id, query))).toBe(2);
    }
    const long = await service.netWorthTrend(premium.id, { unit: 'WEEK', weeks: 104, months: 12 });
    expect(long.points).toHaveLength(104);
  });
});
