import type { CreateEntryRequest } from '@nestegg/contract';
import { describe, expect } from 'vitest';
import { bodyOf, contractClient } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';
import { seedEntries } from './ledger.fixture.js';

/**
 * 2030-04-30 16:30 UTC is already 2030-05-01 01:30 in Seoul: the current month is May in the app's
 * calendar (APP_TIMEZONE), April in UTC.
 */
const clock = { at: Date.parse('2030-04-30T16:30:00Z'), now: () => new Date(clock.at) };
const test = apiTest({ APP_TIMEZONE: 'Asia/Seoul' }, { clock });

const mayDay = (day: number) => `2030-05-${String(day).padStart(2, '0')}`;
const aprilDay = (day: number) => `2030-04-${String(day).padStart(2, '0')}`;
const days = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
const entryOn = (date: string): CreateEntryRequest => ({ type: 'EXPENSE', amount: 1_000, date });

async function bonusesOf(caller: Caller) {
  const { items } = bodyOf(await caller.api.auth.pointHistory(), 200);
  return items.filter((item) => item.reason.startsWith('MONTH_COMPLETE_'));
}

describe('month-complete bonus', () => {
  test('saving the entry that fills the last empty day of the current month grants 1..100 points once', async ({
    app,
    free,
  }) => {
    await seedEntries(
      app,
      free.id,
      days(2, 31).map((day) => ({ entryDate: mayDay(day) })),
    );
    bodyOf(await free.api.ledger.entries.create({ body: entryOn(mayDay(1)) }), 201);
    const [bonus, ...more] = await bonusesOf(free);
    expect(more).toEqual([]);
    expect(bonus?.reason).toBe('MONTH_COMPLETE_203005');
    expect(bonus?.amount).toBeGreaterThanOrEqual(1);
    expect(bonus?.amount).toBeLessThanOrEqual(100);
    expect(bodyOf(await free.api.auth.points(), 200)).toMatchObject({ points: bonus?.amount });

    const again = bodyOf(await free.api.ledger.entries.create({ body: entryOn(mayDay(9)) }), 201);
    bodyOf(await free.api.ledger.entries.update({ params: { id: again.id }, body: { amount: 2_000 } }), 200);
    expect(await bonusesOf(free)).toHaveLength(1);
  });

  test('a missing day grants nothing, and pending entries do not fill a day', async ({ app, free }) => {
    await seedEntries(app, free.id, [
      ...days(1, 30)
        .filter((day) => day !== 15)
        .map((day) => ({ entryDate: mayDay(day) })),
      { entryDate: mayDay(15), pending: true },
    ]);
    bodyOf(await free.api.ledger.entries.create({ body: entryOn(mayDay(31)) }), 201);
    expect(await bonusesOf(free)).toEqual([]);
  });

  test('a past month never grants, even completed (April is still today in UTC, not in Seoul)', async ({
    app,
    free,
  }) => {
    await seedEntries(
      app,
      free.id,
      days(1, 29).map((day) => ({ entryDate: aprilDay(day) })),
    );
    bodyOf(await free.api.ledger.entries.create({ body: entryOn(aprilDay(30)) }), 201);
    expect(await bonusesOf(free)).toEqual([]);
  });

  test('moving an entry onto the missing day of the current month grants it', async ({ app, free }) => {
    await seedEntries(
      app,
      free.id,
      days(1, 30).map((day) => ({ entryDate: mayDay(day) })),
    );
    const april = bodyOf(await free.api.ledger.entries.create({ body: entryOn(aprilDay(3)) }), 201);
    expect(await bonusesOf(free)).toEqual([]);
    bodyOf(await free.api.ledger.entries.update({ params: { id: april.id }, body: { date: mayDay(31) } }), 200);
    expect(await bonusesOf(free)).toHaveLength(1);
  });

  test('two saves that complete the month at once grant it once', async ({ app, free }) => {
    await seedEntries(
      app,
      free.id,
      days(1, 31)
        .filter((day) => day !== 10)
        .map((day) => ({ entryDate: mayDay(day) })),
    );
    const saves = await Promise.all(
      Array.from({ length: 4 }, () => free.api.ledger.entries.create({ body: entryOn(mayDay(10)) })),
    );
    for (const save of saves) bodyOf(save, 201);
    expect(await bonusesOf(free)).toHaveLength(1);
  });

  test('two saves that each fill one of the last two empty days grant it (once)', async ({ app, free }) => {
    await seedEntries(
      app,
      free.id,
      days(1, 29).map((day) => ({ entryDate: mayDay(day) })),
    );
    const saves = await Promise.all([
      free.api.ledger.entries.create({ body: entryOn(mayDay(30)) }),
      free.api.ledger.entries.create({ body: entryOn(mayDay(31)) }),
    ]);
    for (const save of saves) bodyOf(save, 201);
    expect(await bonusesOf(free)).toHaveLength(1);
  });

  test('each month is its own bonus', async ({ app, free }) => {
    await seedEntries(
      app,
      free.id,
      days(2, 31).map((day) => ({ entryDate: mayDay(day) })),
    );
    bodyOf(await free.api.ledger.entries.create({ body: entryOn(mayDay(1)) }), 201);
    let bonuses: Awaited<ReturnType<typeof bonusesOf>> = [];
    clock.at = Date.parse('2030-06-15T03:00:00Z');
    try {
      // Six weeks later: a new session for the same member.
      const { token } = (await app.services.sessions.open(free.id, { rememberMe: false }))!;
      const june = { ...free, api: contractClient(app, { token }) };
      await seedEntries(
        app,
        free.id,
        days(1, 29).map((day) => ({ entryDate: `2030-06-${String(day).padStart(2, '0')}` })),
      );
      bodyOf(await june.api.ledger.entries.create({ body: entryOn('2030-06-30') }), 201);
      bonuses = await bonusesOf(june);
    } finally {
      clock.at = Date.parse('2030-04-30T16:30:00Z');
    }
    expect(bonuses.map((bonus) => bonus.reason).sort()).toEqual(['MONTH_COMPLETE_203005', 'MONTH_COMPLETE_203006']);
  });
});
