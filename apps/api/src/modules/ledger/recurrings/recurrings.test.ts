import type { CreateRecurringRequest } from '@nestegg/contract';
import { account, category, recurring } from '@nestegg/db';
import { addDays, dateIn, nextOccurrence } from '@nestegg/domain';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

const rent: CreateRecurringRequest = {
  name: 'Rent',
  type: 'EXPENSE',
  amount: 500_000,
  frequency: 'MONTHLY',
  dayOfMonth: 25,
  startDate: '2099-01-10',
};

async function walletOf(app: FastifyInstance, caller: Caller, name = 'Main'): Promise<number> {
  const [row] = await app.db
    .insert(account)
    .values({ memberId: caller.id, name, type: 'BANK' })
    .returning({ id: account.id });
  return row!.id;
}

async function categoryOf(app: FastifyInstance, caller: Caller, name: string, type: 'INCOME' | 'EXPENSE' = 'EXPENSE') {
  await app.db.insert(category).values({ memberId: caller.id, name, type });
}

/** The api's "today" (APP_TIMEZONE is UTC in tests). */
const today = () => dateIn('UTC', new Date());

describe('recurring transactions: CRUD', () => {
  test('creates with every field, lists, changes one field, clears with null, deletes', async ({ app, premium }) => {
    const wallet = await walletOf(app, premium);
    await categoryOf(app, premium, 'Housing');
    const created = bodyOf(
      await premium.api.ledger.recurrings.create({
        body: { ...rent, category: 'Housing', accountId: wallet, memo: 'landlord', endDate: '2099-12-31' },
      }),
      201,
    );
    expect(created).toMatchObject({
      name: 'Rent',
      type: 'EXPENSE',
      amount: 500_000,
      category: 'Housing',
      accountId: wallet,
      memo: 'landlord',
      frequency: 'MONTHLY',
      dayOfMonth: 25,
      dayOfWeek: null,
      monthOfYear: null,
      startDate: '2099-01-10',
      endDate: '2099-12-31',
      active: true,
      lastRunOn: null,
      nextDate: '2099-01-25',
    });
    expect(bodyOf(await premium.api.ledger.recurrings.list(), 200).items).toEqual([created]);

    const changed = bodyOf(
      await premium.api.ledger.recurrings.update({ params: { id: created.id }, body: { amount: 550_000, memo: null } }),
      200,
    );
    expect(changed).toMatchObject({ amount: 550_000, memo: null, category: 'Housing', accountId: wallet });
    expect(changed.name).toBe('Rent');

    bodyOf(await premium.api.ledger.recurrings.delete({ params: { id: created.id } }), 204);
    expect(bodyOf(await premium.api.ledger.recurrings.list(), 200).items).toEqual([]);
    problemOf(await premium.api.ledger.recurrings.delete({ params: { id: created.id } }), 404, 'NOT_FOUND');
    problemOf(await premium.api.ledger.recurrings.update({ params: { id: created.id }, body: {} }), 404, 'NOT_FOUND');
  });

  test('takes omitted schedule fields from the start date and clears the ones a frequency does not use', async ({
    premium,
  }) => {
    const { dayOfMonth: _day, ...withoutDay } = rent;
    const monthly = bodyOf(await premium.api.ledger.recurrings.create({ body: withoutDay }), 201);
    expect(monthly).toMatchObject({ dayOfMonth: 10, nextDate: '2099-01-10' });

    // 2099-01-10 is a Saturday (ISO 6).
    const weekly = bodyOf(
      await premium.api.ledger.recurrings.update({ params: { id: monthly.id }, body: { frequency: 'WEEKLY' } }),
      200,
    );
    expect(weekly).toMatchObject({ dayOfMonth: null, dayOfWeek: 6, monthOfYear: null, nextDate: '2099-01-10' });

    const yearly = bodyOf(
      await premium.api.ledger.recurrings.update({
        params: { id: monthly.id },
        body: { frequency: 'YEARLY', monthOfYear: 2, dayOfMonth: 31, dayOfWeek: 3 },
      }),
      200,
    );
    expect(yearly).toMatchObject({ dayOfMonth: 31, dayOfWeek: null, monthOfYear: 2, nextDate: '2099-02-28' });
  });

  test('refuses an end before the start, also against the stored start', async ({ premium }) => {
    problemOf(
      await premium.api.ledger.recurrings.create({ body: { ...rent, endDate: '2099-01-09' } }),
      400,
      'VALIDATION_FAILED',
    );
    const created = bodyOf(
      await premium.api.ledger.recurrings.create({ body: { ...rent, endDate: '2099-12-31' } }),
      201,
    );
    problemOf(
      await premium.api.ledger.recurrings.update({ params: { id: created.id }, body: { endDate: '2099-01-09' } }),
      400,
      'VALIDATION_FAILED',
    );
    problemOf(
      await premium.api.ledger.recurrings.update({ params: { id: created.id }, body: { startDate: '2100-01-01' } }),
      400,
      'VALIDATION_FAILED',
    );
    const moved = bodyOf(
      await premium.api.ledger.recurrings.update({
        params: { id: created.id },
        body: { startDate: '2100-01-01', endDate: null },
      }),
      200,
    );
    expect(moved).toMatchObject({ startDate: '2100-01-01', endDate: null, nextDate: '2100-01-25' });
  });
});

describe('recurring transactions: next date', () => {
  test('is the next occurrence on or after today; null when inactive or ended', async ({ premium }) => {
    const start = addDays(today(), -100);
    const running = bodyOf(
      await premium.api.ledger.recurrings.create({ body: { ...rent, dayOfMonth: 31, startDate: start } }),
      201,
    );
    const expected = nextOccurrence(
      { frequency: 'MONTHLY', dayOfMonth: 31, dayOfWeek: null, monthOfYear: null, startDate: start, endDate: null },
      today(),
    );
    expect(running.nextDate).toBe(expected);
    expect(running.nextDate! >= today()).toBe(true);

    const paused = bodyOf(
      await premium.api.ledger.recurrings.create({ body: { ...rent, startDate: start, active: false } }),
      201,
    );
    expect(paused.nextDate).toBeNull();
    const ended = bodyOf(
      await premium.api.ledger.recurrings.create({
        body: { ...rent, startDate: start, endDate: addDays(today(), -1), frequency: 'WEEKLY' },
      }),
      201,
    );
    expect(ended.nextDate).toBeNull();
  });

  test('resumes after what was posted; a pause or a schedule change settles the days before today', async ({
    app,
    premium,
  }) => {
    const created = bodyOf(
      await premium.api.ledger.recurrings.create({
        body: { ...rent, frequency: 'WEEKLY', startDate: addDays(today(), -30), active: false },
      }),
      201,
    );
    await app.db
      .update(recurring)
      .set({ lastRunOn: addDays(today(), -20) })
      .where(eq(recurring.id, created.id));

    const resumed = bodyOf(
      await premium.api.ledger.recurrings.update({ params: { id: created.id }, body: { active: true } }),
      200,
    );
    expect(resumed.lastRunOn).toBe(addDays(today(), -1));

    await app.db
      .update(recurring)
      .set({ lastRunOn: addDays(today(), -20) })
      .where(eq(recurring.id, created.id));
    const renamed = bodyOf(
      await premium.api.ledger.recurrings.update({ params: { id: created.id }, body: { name: 'Gym' } }),
      200,
    );
    expect(renamed.lastRunOn).toBe(addDays(today(), -20));
    const rescheduled = bodyOf(
      await premium.api.ledger.recurrings.update({
        params: { id: created.id },
        // Another weekday than the one the start date gave it, whatever day today is.
        body: { dayOfWeek: (created.dayOfWeek! % 7) + 1 },
      }),
      200,
    );
    expect(rescheduled.lastRunOn).toBe(addDays(today(), -1));
  });
});

describe('recurring transactions: the FREE limit', () => {
  test('parallel creations by a FREE member: exactly two pass, the others are 400 RECURRING_LIMIT', async ({
    app,
    free,
  }) => {
    const names = ['Rent', 'Phone', 'Gym', 'Water', 'Power', 'Gas', 'Net', 'Tax'];
    const responses = await Promise.all(
      names.map((name) => free.api.ledger.recurrings.create({ body: { ...rent, name } })),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(2);
    for (const refused of responses.filter((response) => response.status !== 201)) {
      problemOf(refused, 400, 'RECURRING_LIMIT');
    }
    expect(await app.db.select().from(recurring).where(eq(recurring.memberId, free.id))).toHaveLength(2);

    // Counted in total, whatever the kind; a deletion frees a place.
    problemOf(
      await free.api.ledger.recurrings.create({ body: { ...rent, type: 'INCOME', frequency: 'YEARLY' } }),
      400,
      'RECURRING_LIMIT',
    );
    const [first] = bodyOf(await free.api.ledger.recurrings.list(), 200).items;
    bodyOf(await free.api.ledger.recurrings.delete({ params: { id: first!.id } }), 204);
    bodyOf(await free.api.ledger.recurrings.create({ body: rent }), 201);
  });

  test('PREMIUM members and ADMINs are not limited', async ({ premium, admin }) => {
    for (const caller of [premium, admin]) {
      for (const name of ['One', 'Two', 'Three', 'Four']) {
        bodyOf(await caller.api.ledger.recurrings.create({ body: { ...rent, name } }), 201);
      }
      expect(bodyOf(await caller.api.ledger.recurrings.list(), 200).items).toHaveLength(4);
    }
  });
});

describe('recurring transactions: wallet and category', () => {
  test("another member's wallet is 404 and nothing is created or changed", async ({ app, free, other }) => {
    const foreign = await walletOf(app, other);
    problemOf(await free.api.ledger.recurrings.create({ body: { ...rent, accountId: foreign } }), 404, 'NOT_FOUND');
    const created = bodyOf(await free.api.ledger.recurrings.create({ body: rent }), 201);
    problemOf(
      await free.api.ledger.recurrings.update({ params: { id: created.id }, body: { accountId: foreign } }),
      404,
      'NOT_FOUND',
    );
    expect(bodyOf(await free.api.ledger.recurrings.list(), 200).items).toEqual([created]);
    problemOf(await other.api.ledger.recurrings.update({ params: { id: created.id }, body: {} }), 404, 'NOT_FOUND');
    problemOf(await other.api.ledger.recurrings.delete({ params: { id: created.id } }), 404, 'NOT_FOUND');
  });

  test('the category must be one of the caller’s categories of that type', async ({ app, free, other }) => {
    await categoryOf(app, other, 'Housing');
    await categoryOf(app, free, 'Salary', 'INCOME');
    problemOf(
      await free.api.ledger.recurrings.create({ body: { ...rent, category: 'Housing' } }),
      400,
      'UNKNOWN_CATEGORY',
    );
    problemOf(
      await free.api.ledger.recurrings.create({ body: { ...rent, category: 'Salary' } }),
      400,
      'UNKNOWN_CATEGORY',
    );
    const salary = bodyOf(
      await free.api.ledger.recurrings.create({ body: { ...rent, type: 'INCOME', category: 'Salary' } }),
      201,
    );
    problemOf(
      await free.api.ledger.recurrings.update({ params: { id: salary.id }, body: { type: 'EXPENSE' } }),
      400,
      'UNKNOWN_CATEGORY',
    );
    bodyOf(
      await free.api.ledger.recurrings.update({ params: { id: salary.id }, body: { type: 'EXPENSE', category: null } }),
      200,
    );
  });

  test('a deleted wallet empties the reference and keeps the recurring', async ({ app, premium }) => {
    const wallet = await walletOf(app, premium);
    const created = bodyOf(await premium.api.ledger.recurrings.create({ body: { ...rent, accountId: wallet } }), 201);
    await app.db.delete(account).where(eq(account.id, wallet));
    expect(bodyOf(await premium.api.ledger.recurrings.list(), 200).items[0]).toMatchObject({
      id: created.id,
      accountId: null,
    });
  });
});
