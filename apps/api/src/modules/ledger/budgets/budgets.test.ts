import { contract, listRoutes } from '@nestegg/contract';
import { budget } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, vi } from 'vitest';
import type { TestMember } from '../../../test/app.js';
import { bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';
import { categoryTree, entries } from '../statistics/ledger.fixture.js';

const MAY = { year: 2026, month: 5 } as const;
const JUNE = { year: 2026, month: 6 } as const;

/**
 * A hand-computed May 2026: 식비 (with 카페 and 외식), 교통, 쇼핑 and the income 급여. Confirmed May
 * expenses: 식비 10,000 + 카페 4,500 + 외식 30,000 + 교통 1,250 + 쇼핑 20,000 + no category 7,000 = 72,750.
 */
async function mayLedger(app: FastifyInstance, owner: TestMember): Promise<void> {
  await categoryTree(app, owner, { 식비: ['카페', '외식'], 교통: [], 쇼핑: [] });
  await categoryTree(app, owner, { 급여: [] }, 'INCOME');
  await entries(app, owner, [
    { amount: 10_000, date: '2026-05-01', category: '식비' },
    { amount: 4_500, date: '2026-05-15', category: '카페' },
    { amount: 30_000, date: '2026-05-31', category: '외식' },
    { amount: 9_999, date: '2026-05-20', category: '카페', pending: true },
    { amount: 1_250, date: '2026-05-02', category: '교통' },
    { amount: 50_000, date: '2026-04-30', category: '쇼핑' },
    { amount: 70_000, date: '2026-06-01', category: '쇼핑' },
    { amount: 20_000, date: '2026-05-10', category: '쇼핑' },
    { amount: 7_000, date: '2026-05-05', category: null },
    { type: 'INCOME', amount: 3_000_000, date: '2026-05-25', category: '급여' },
  ]);
}

describe('budgets: premium only', () => {
  test('FREE members get 403 PREMIUM_REQUIRED on every budget route; admins pass', async ({ app, free, admin }) => {
    for (const { key, route } of listRoutes(contract.ledger.budgets)) {
      const response = await app.inject({
        method: route.method as 'GET',
        url: route.path.replace(/:[A-Za-z]+/g, '1'),
        headers: free.headers,
      });
      expect([key, response.statusCode, response.json().code]).toEqual([key, 403, 'PREMIUM_REQUIRED']);
    }
    expect(bodyOf(await admin.api.ledger.budgets.list({ query: MAY }), 200).items).toEqual([]);
  });
});

describe('monthly budgets', () => {
  test('create, list, change, delete; the category must be one of my expense categories', async ({
    app,
    premium,
    other,
  }) => {
    await mayLedger(app, premium);
    await categoryTree(app, other, { 여행: [] });
    const created = bodyOf(
      await premium.api.ledger.budgets.create({ body: { category: '식비', ...MAY, amount: 100_000 } }),
      201,
    );
    expect(created).toEqual({ id: created.id, category: '식비', ...MAY, amount: 100_000, spent: 44_500 });

    for (const category of ['급여', '여행', '없는분류']) {
      problemOf(
        await premium.api.ledger.budgets.create({ body: { category, ...MAY, amount: 1 } }),
        400,
        'UNKNOWN_CATEGORY',
      );
    }
    const changed = bodyOf(
      await premium.api.ledger.budgets.update({ params: { id: created.id }, body: { category: '교통', amount: 5 } }),
      200,
    );
    expect(changed).toEqual({ id: created.id, category: '교통', ...MAY, amount: 5, spent: 1_250 });
    problemOf(
      await premium.api.ledger.budgets.update({ params: { id: created.id }, body: { category: '급여' } }),
      400,
      'UNKNOWN_CATEGORY',
    );
    problemOf(await premium.api.ledger.budgets.update({ params: { id: 999_999 }, body: {} }), 404, 'NOT_FOUND');

    bodyOf(await premium.api.ledger.budgets.delete({ params: { id: created.id } }), 204);
    problemOf(await premium.api.ledger.budgets.delete({ params: { id: created.id } }), 404, 'NOT_FOUND');
    expect(bodyOf(await premium.api.ledger.budgets.list({ query: MAY }), 200).items).toEqual([]);
  });

  test('one budget per category and month: a duplicate, a rename onto a budgeted category, a race → 409', async ({
    app,
    premium,
  }) => {
    await categoryTree(app, premium, { 식비: [], 교통: [] });
    const food = bodyOf(
      await premium.api.ledger.budgets.create({ body: { category: '식비', ...MAY, amount: 1 } }),
      201,
    );
    problemOf(
      await premium.api.ledger.budgets.create({ body: { category: '식비', ...MAY, amount: 2 } }),
      409,
      'DUPLICATE_BUDGET',
    );
    bodyOf(await premium.api.ledger.budgets.create({ body: { category: '식비', ...JUNE, amount: 2 } }), 201);
    bodyOf(await premium.api.ledger.budgets.create({ body: { category: '교통', ...MAY, amount: 3 } }), 201);
    problemOf(
      await premium.api.ledger.budgets.update({ params: { id: food.id }, body: { category: '교통' } }),
      409,
      'DUPLICATE_BUDGET',
    );

    const raced = await Promise.all(
      [1, 2, 3].map((amount) => premium.api.ledger.budgets.create({ body: { category: '교통', ...JUNE, amount } })),
    );
    expect(raced.map((response) => response.status).sort()).toEqual([201, 409, 409]);
    const june = await app.db.select().from(budget).where(eq(budget.memberId, premium.id));
    expect(june.filter((row) => row.category === '교통' && row.month === 6)).toHaveLength(1);
  });

  test('spent: confirmed expenses of the month; a top-level budget includes its sub-categories', async ({
    app,
    premium,
    other,
  }) => {
    await mayLedger(app, premium);
    await categoryTree(app, other, { 식비: [] });
    await entries(app, other, [{ amount: 99_999, date: '2026-05-03', category: '식비' }]);
    for (const [category, amount] of [
      ['식비', 100_000],
      ['카페', 20_000],
      ['교통', 50_000],
    ] as const) {
      bodyOf(await premium.api.ledger.budgets.create({ body: { category, ...MAY, amount } }), 201);
    }
    bodyOf(await premium.api.ledger.budgets.setIncome({ body: { ...MAY, amount: 3_500_000 } }), 200);

    const may = bodyOf(await premium.api.ledger.budgets.list({ query: MAY }), 200);
    expect(may.items.map(({ category, amount, spent }) => ({ category, amount, spent }))).toEqual([
      { category: '교통', amount: 50_000, spent: 1_250 },
      { category: '식비', amount: 100_000, spent: 44_500 },
      { category: '카페', amount: 20_000, spent: 4_500 },
    ]);
    expect(may).toMatchObject({ ...MAY, totalBudget: 170_000, totalSpent: 72_750, expectedIncome: 3_500_000 });

    const empty = bodyOf(await premium.api.ledger.budgets.list({ query: { year: 2026, month: 7 } }), 200);
    expect(empty).toEqual({ year: 2026, month: 7, items: [], totalBudget: 0, totalSpent: 0, expectedIncome: null });
  });

  test("spent of a month's budgets is one statement, whatever their number", async ({ app, premium }) => {
    const names = Array.from({ length: 12 }, (_, index) => `분류${String(index).padStart(2, '0')}`);
    await categoryTree(app, premium, Object.fromEntries(names.map((name) => [name, [`${name}-하위`]])));
    await entries(
      app,
      premium,
      names.map((name, index) => ({ amount: 100 + index, date: '2026-05-09', category: `${name}-하위` })),
    );
    for (const name of names) {
      bodyOf(await premium.api.ledger.budgets.create({ body: { category: name, ...MAY, amount: 1_000 } }), 201);
    }
    const execute = vi.spyOn(app.services.budgets.deps.db, 'execute');
    try {
      const may = bodyOf(await premium.api.ledger.budgets.list({ query: MAY }), 200);
      expect(may.items.map((item) => item.spent)).toEqual(names.map((_, index) => 100 + index));
      expect(execute).toHaveBeenCalledTimes(1);
    } finally {
      execute.mockRestore();
    }
  });

  test('copy: the target month takes the source budgets, same category overwritten, others kept', async ({
    app,
    premium,
  }) => {
    await categoryTree(app, premium, { 식비: ['카페'], 교통: [] });
    const create = (category: string, month: typeof MAY | typeof JUNE, amount: number) =>
      premium.api.ledger.budgets.create({ body: { category, ...month, amount } });
    bodyOf(await create('식비', MAY, 100_000), 201);
    bodyOf(await create('카페', MAY, 20_000), 201);
    const juneFood = bodyOf(await create('식비', JUNE, 80_000), 201);
    bodyOf(await create('교통', JUNE, 30_000), 201);

    const copy = (from: { year: number; month: number }, to: { year: number; month: number }) =>
      premium.api.ledger.budgets.copy({
        body: { fromYear: from.year, fromMonth: from.month, toYear: to.year, toMonth: to.month },
      });
    expect(bodyOf(await copy(MAY, JUNE), 200)).toEqual({ copied: 2 });
    const june = bodyOf(await premium.api.ledger.budgets.list({ query: JUNE }), 200);
    expect(june.items.map(({ id, category, amount }) => ({ id, category, amount }))).toEqual([
      { id: june.items[0]!.id, category: '교통', amount: 30_000 },
      { id: juneFood.id, category: '식비', amount: 100_000 },
      { id: june.items[2]!.id, category: '카페', amount: 20_000 },
    ]);
    const may = bodyOf(await premium.api.ledger.budgets.list({ query: MAY }), 200);
    expect(may.items.map(({ category, amount }) => [category, amount])).toEqual([
      ['식비', 100_000],
      ['카페', 20_000],
    ]);

    const twice = await Promise.all([copy(MAY, JUNE), copy(MAY, JUNE)]);
    expect(twice.map((response) => bodyOf(response, 200))).toEqual([{ copied: 2 }, { copied: 2 }]);
    const rows = await app.db.select().from(budget).where(eq(budget.memberId, premium.id));
    expect(rows.filter((row) => row.month === 6).map((row) => [row.category, row.amount])).toHaveLength(3);

    expect(bodyOf(await copy({ year: 2020, month: 1 }, JUNE), 200)).toEqual({ copied: 0 });
    expect(bodyOf(await premium.api.ledger.budgets.list({ query: JUNE }), 200).items).toHaveLength(3);
    problemOf(await copy(MAY, MAY), 400, 'VALIDATION_FAILED');
  });
});

describe('expected monthly income', () => {
  test('unset is null; set, change, remove with null; per month and per member', async ({ premium, admin }) => {
    const { api } = premium;
    expect(bodyOf(await api.ledger.budgets.getIncome({ query: MAY }), 200)).toEqual({ ...MAY, amount: null });
    expect(bodyOf(await api.ledger.budgets.setIncome({ body: { ...MAY, amount: 3_000_000 } }), 200)).toEqual({
      ...MAY,
      amount: 3_000_000,
    });
    bodyOf(await api.ledger.budgets.setIncome({ body: { ...MAY, amount: 3_200_000 } }), 200);
    bodyOf(await api.ledger.budgets.setIncome({ body: { ...JUNE, amount: 10 } }), 200);
    expect(bodyOf(await api.ledger.budgets.getIncome({ query: MAY }), 200)).toEqual({ ...MAY, amount: 3_200_000 });
    expect(bodyOf(await api.ledger.budgets.getIncome({ query: JUNE }), 200)).toEqual({ ...JUNE, amount: 10 });

    expect(bodyOf(await admin.api.ledger.budgets.getIncome({ query: MAY }), 200).amount).toBeNull();

    expect(bodyOf(await api.ledger.budgets.setIncome({ body: { ...MAY, amount: null } }), 200)).toEqual({
      ...MAY,
      amount: null,
    });
    expect(bodyOf(await api.ledger.budgets.getIncome({ query: MAY }), 200)).toEqual({ ...MAY, amount: null });
    expect(bodyOf(await api.ledger.budgets.getIncome({ query: JUNE }), 200).amount).toBe(10);
  });
});

describe('one-time budgets', () => {
  const trip = { name: 'Trip', amount: 500_000, startDate: '2026-05-10', endDate: '2026-05-31' };

  test('spent: the range, of the category with its sub-categories, or every expense without one', async ({
    app,
    premium,
  }) => {
    await mayLedger(app, premium);
    const food = bodyOf(
      await premium.api.ledger.budgets.createOnetime({ body: { ...trip, category: '식비', memo: ' ' } }),
      201,
    );
    expect(food).toEqual({ id: food.id, ...trip, category: '식비', memo: null, spent: 34_500 });
    const all = bodyOf(
      await premium.api.ledger.budgets.createOnetime({
        body: { name: 'Early May', amount: 1, startDate: '2026-05-01', endDate: '2026-05-05' },
      }),
      201,
    );
    expect(all).toMatchObject({ category: null, spent: 18_250 });
    const cafe = bodyOf(
      await premium.api.ledger.budgets.createOnetime({ body: { ...trip, name: 'Cafe', category: '카페' } }),
      201,
    );
    expect(cafe.spent).toBe(4_500);

    const listed = bodyOf(await premium.api.ledger.budgets.listOnetime({ query: {} }), 200).items;
    expect(listed.map((item) => [item.id, item.spent])).toEqual([
      [cafe.id, 4_500],
      [food.id, 34_500],
      [all.id, 18_250],
    ]);
  });

  test('create, change, delete; unknown category 400, end before start 400, unknown id 404', async ({
    app,
    premium,
  }) => {
    await mayLedger(app, premium);
    for (const category of ['급여', '없는분류']) {
      problemOf(
        await premium.api.ledger.budgets.createOnetime({ body: { ...trip, category } }),
        400,
        'UNKNOWN_CATEGORY',
      );
    }
    problemOf(
      await premium.api.ledger.budgets.createOnetime({ body: { ...trip, endDate: '2026-05-09' } }),
      400,
      'VALIDATION_FAILED',
    );
    const created = bodyOf(await premium.api.ledger.budgets.createOnetime({ body: { ...trip, memo: 'Jeju' } }), 201);
    expect(created).toMatchObject({ category: null, memo: 'Jeju', spent: 54_500 });

    const update = (body: Parameters<typeof premium.api.ledger.budgets.updateOnetime>[0]['body']) =>
      premium.api.ledger.budgets.updateOnetime({ params: { id: created.id }, body });
    expect(bodyOf(await update({ category: '외식', memo: null, amount: 7 }), 200)).toEqual({
      ...created,
      category: '외식',
      memo: null,
      amount: 7,
      spent: 30_000,
    });
    problemOf(await update({ endDate: '2026-05-01' }), 400, 'VALIDATION_FAILED');
    problemOf(await update({ category: '급여' }), 400, 'UNKNOWN_CATEGORY');
    expect(bodyOf(await update({ startDate: '2026-05-01', category: null }), 200)).toMatchObject({
      startDate: '2026-05-01',
      endDate: '2026-05-31',
      category: null,
      spent: 72_750,
    });
    problemOf(await premium.api.ledger.budgets.updateOnetime({ params: { id: 999_999 }, body: {} }), 404, 'NOT_FOUND');

    bodyOf(await premium.api.ledger.budgets.deleteOnetime({ params: { id: created.id } }), 204);
    problemOf(await premium.api.ledger.budgets.deleteOnetime({ params: { id: created.id } }), 404, 'NOT_FOUND');
  });

  test('the list keeps budgets overlapping from..to', async ({ premium }) => {
    const make = async (name: string, startDate: string, endDate: string) =>
      bodyOf(await premium.api.ledger.budgets.createOnetime({ body: { name, amount: 1, startDate, endDate } }), 201).id;
    const april = await make('April', '2026-04-01', '2026-04-30');
    const spring = await make('Spring', '2026-03-01', '2026-05-31');
    const june = await make('June', '2026-06-01', '2026-06-30');
    const ids = async (query: { from?: string; to?: string }) =>
      bodyOf(await premium.api.ledger.budgets.listOnetime({ query }), 200).items.map((item) => item.id);
    expect(await ids({})).toEqual([june, april, spring]);
    expect(await ids({ from: '2026-05-01' })).toEqual([june, spring]);
    expect(await ids({ to: '2026-04-15' })).toEqual([april, spring]);
    expect(await ids({ from: '2026-04-30', to: '2026-06-01' })).toEqual([june, april, spring]);
    expect(await ids({ from: '2026-07-01' })).toEqual([]);
  });
});
