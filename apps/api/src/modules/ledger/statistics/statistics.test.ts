import { contract, listRoutes } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { describe, expect, vi } from 'vitest';
import type { TestMember } from '../../../test/app.js';
import { bodyOf, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { categoryTree, entries } from './ledger.fixture.js';

/** 01:30 on 1 July 2026 in Seoul, still 30 June in UTC: "this month" is July only in the member calendar. */
const clock = { now: () => new Date('2026-06-30T16:30:00Z') };
const test = apiTest({ APP_TIMEZONE: 'Asia/Seoul' }, { clock });

/**
 * A hand-computed ledger. May 2026, confirmed: incomes 급여 3,000,000 + 부수입 100,000 = 3,100,000;
 * expenses 식비 10,000, 카페 4,500 + 5,500, 외식 30,000, 교통 1,250 + 1,000 + 1,000, no category 7,000,
 * 삭제된분류 (no such category) 800 = 61,050. Plus 급여 2,900,000 in February, 외식 12,000 on 1 July,
 * 식비 1,000 in December 2025, and a pending 카페 9,999 in May that counts nowhere.
 */
async function ledger(app: FastifyInstance, owner: TestMember): Promise<void> {
  await categoryTree(app, owner, { 식비: ['카페', '외식'], 교통: [] });
  await categoryTree(app, owner, { 급여: [], 부수입: [] }, 'INCOME');
  await entries(app, owner, [
    { amount: 10_000, date: '2026-05-01', category: '식비', memo: '  김밥천국 ' },
    { amount: 4_500, date: '2026-05-15', category: '카페', memo: '스타벅스  강남점' },
    { amount: 5_500, date: '2026-05-16', category: '카페', memo: '스타벅스 강남점' },
    { amount: 9_999, date: '2026-05-20', category: '카페', memo: '스타벅스 강남점', pending: true },
    { amount: 30_000, date: '2026-05-31', category: '외식', memo: '김밥천국' },
    { amount: 1_250, date: '2026-05-02', category: '교통', memo: 'Kakao T' },
    { amount: 1_000, date: '2026-05-03', category: '교통', memo: 'kakao t' },
    { amount: 1_000, date: '2026-05-04', category: '교통', memo: 'Kakao \t T' },
    { amount: 7_000, date: '2026-05-05', category: null },
    { amount: 800, date: '2026-05-06', category: '삭제된분류', memo: '   ' },
    { type: 'INCOME', amount: 3_000_000, date: '2026-05-25', category: '급여', memo: '회사' },
    { type: 'INCOME', amount: 100_000, date: '2026-05-26', category: '부수입', memo: 'Kakao T' },
    { type: 'INCOME', amount: 2_900_000, date: '2026-02-25', category: '급여', memo: '회사' },
    { amount: 12_000, date: '2026-07-01', category: '외식', memo: '냉면' },
    { amount: 1_000, date: '2025-12-31', category: '식비' },
  ]);
}

const total = (type: 'INCOME' | 'EXPENSE', amount: number, count: number) => ({ type, amount, count });

describe('statistics: premium only', () => {
  test('FREE members get 403 PREMIUM_REQUIRED on every statistics route; admins pass', async ({ app, free, admin }) => {
    for (const { key, route } of listRoutes(contract.ledger.stats)) {
      const response = await app.inject({ method: 'GET', url: route.path, headers: free.headers });
      expect([key, response.statusCode, response.json().code]).toEqual([key, 403, 'PREMIUM_REQUIRED']);
    }
    expect(bodyOf(await admin.api.ledger.stats.trend({ query: {} }), 200).months).toHaveLength(12);
  });
});

describe('monthly and yearly statistics', () => {
  test('a month: totals, per category with its top-level category, and rolled up', async ({ app, premium, other }) => {
    await ledger(app, premium);
    await entries(app, other, [{ amount: 55_555, date: '2026-05-05', category: '식비' }]);
    const may = bodyOf(await premium.api.ledger.stats.monthly({ query: { year: 2026, month: 5 } }), 200);
    expect(may).toEqual({
      year: 2026,
      month: 5,
      income: 3_100_000,
      expense: 61_050,
      balance: 3_038_950,
      byCategory: [
        { category: '급여', parentCategory: null, ...total('INCOME', 3_000_000, 1) },
        { category: '부수입', parentCategory: null, ...total('INCOME', 100_000, 1) },
        { category: '외식', parentCategory: '식비', ...total('EXPENSE', 30_000, 1) },
        { category: '식비', parentCategory: null, ...total('EXPENSE', 10_000, 1) },
        { category: '카페', parentCategory: '식비', ...total('EXPENSE', 10_000, 2) },
        { category: null, parentCategory: null, ...total('EXPENSE', 7_000, 1) },
        { category: '교통', parentCategory: null, ...total('EXPENSE', 3_250, 3) },
        { category: '삭제된분류', parentCategory: null, ...total('EXPENSE', 800, 1) },
      ],
      byTopCategory: [
        { category: '급여', ...total('INCOME', 3_000_000, 1) },
        { category: '부수입', ...total('INCOME', 100_000, 1) },
        { category: '식비', ...total('EXPENSE', 50_000, 4) },
        { category: null, ...total('EXPENSE', 7_000, 1) },
        { category: '교통', ...total('EXPENSE', 3_250, 3) },
        { category: '삭제된분류', ...total('EXPENSE', 800, 1) },
      ],
    });
    const empty = bodyOf(await premium.api.ledger.stats.monthly({ query: { year: 2026, month: 6 } }), 200);
    expect(empty).toEqual({
      year: 2026,
      month: 6,
      income: 0,
      expense: 0,
      balance: 0,
      byCategory: [],
      byTopCategory: [],
    });
  });

  test('a year: totals, twelve months, per category', async ({ app, premium }) => {
    await ledger(app, premium);
    const year = bodyOf(await premium.api.ledger.stats.yearly({ query: { year: 2026 } }), 200);
    expect(year).toMatchObject({ year: 2026, income: 6_000_000, expense: 73_050, balance: 5_926_950 });
    const zero = { income: 0, expense: 0, balance: 0 };
    expect(year.months).toEqual([
      { month: 1, ...zero },
      { month: 2, income: 2_900_000, expense: 0, balance: 2_900_000 },
      { month: 3, ...zero },
      { month: 4, ...zero },
      { month: 5, income: 3_100_000, expense: 61_050, balance: 3_038_950 },
      { month: 6, ...zero },
      { month: 7, income: 0, expense: 12_000, balance: -12_000 },
      ...[8, 9, 10, 11, 12].map((month) => ({ month, ...zero })),
    ]);
    expect(year.byCategory.slice(0, 3)).toEqual([
      { category: '급여', parentCategory: null, ...total('INCOME', 5_900_000, 2) },
      { category: '부수입', parentCategory: null, ...total('INCOME', 100_000, 1) },
      { category: '외식', parentCategory: '식비', ...total('EXPENSE', 42_000, 2) },
    ]);
    expect(year.byTopCategory.find((row) => row.category === '식비')).toEqual({
      category: '식비',
      ...total('EXPENSE', 62_000, 5),
    });
  });
});

describe('trend', () => {
  test('income and expense per month up to the current month of the member calendar, empty months as zeros', async ({
    app,
    premium,
  }) => {
    await ledger(app, premium);
    const three = bodyOf(await premium.api.ledger.stats.trend({ query: { months: 3 } }), 200);
    expect(three.months).toEqual([
      { year: 2026, month: 5, income: 3_100_000, expense: 61_050, balance: 3_038_950 },
      { year: 2026, month: 6, income: 0, expense: 0, balance: 0 },
      { year: 2026, month: 7, income: 0, expense: 12_000, balance: -12_000 },
    ]);
    const year = bodyOf(await premium.api.ledger.stats.trend({ query: {} }), 200).months;
    expect(year.map(({ year, month }) => `${year}-${month}`)).toEqual([
      ...[8, 9, 10, 11, 12].map((month) => `2025-${month}`),
      ...[1, 2, 3, 4, 5, 6, 7].map((month) => `2026-${month}`),
    ]);
    expect(year[4]).toEqual({ year: 2025, month: 12, income: 0, expense: 1_000, balance: -1_000 });
    expect(year[6]).toMatchObject({ year: 2026, month: 2, income: 2_900_000 });
    expect(bodyOf(await premium.api.ledger.stats.trend({ query: { months: 36 } }), 200).months[0]).toMatchObject({
      year: 2023,
      month: 8,
    });
    for (const months of [0, 37]) {
      problemOf(await premium.api.ledger.stats.trend({ query: { months } }), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('top merchants', () => {
  test('memos grouped up to case and spacing, largest total first, within the range and type', async ({
    app,
    premium,
  }) => {
    await ledger(app, premium);
    const may = { from: '2026-05-01', to: '2026-05-31' };
    const expenses = bodyOf(await premium.api.ledger.stats.merchants({ query: may }), 200);
    expect(expenses).toEqual({
      ...may,
      type: 'EXPENSE',
      items: [
        { merchant: '김밥천국', amount: 40_000, count: 2 },
        { merchant: '스타벅스 강남점', amount: 10_000, count: 2 },
        { merchant: 'Kakao T', amount: 3_250, count: 3 },
      ],
    });
    const top = bodyOf(await premium.api.ledger.stats.merchants({ query: { ...may, limit: 1 } }), 200);
    expect(top.items.map((item) => item.merchant)).toEqual(['김밥천국']);
    const incomes = bodyOf(await premium.api.ledger.stats.merchants({ query: { ...may, type: 'INCOME' } }), 200);
    expect(incomes.items).toEqual([
      { merchant: '회사', amount: 3_000_000, count: 1 },
      { merchant: 'Kakao T', amount: 100_000, count: 1 },
    ]);
    const mid = bodyOf(
      await premium.api.ledger.stats.merchants({ query: { from: '2026-05-16', to: '2026-05-31' } }),
      200,
    );
    expect(mid.items).toEqual([
      { merchant: '김밥천국', amount: 30_000, count: 1 },
      { merchant: '스타벅스 강남점', amount: 5_500, count: 1 },
    ]);
  });

  test('defaults to this month of the member calendar up to today; from after to → 400', async ({ app, premium }) => {
    await ledger(app, premium);
    expect(bodyOf(await premium.api.ledger.stats.merchants({ query: {} }), 200)).toEqual({
      from: '2026-07-01',
      to: '2026-07-01',
      type: 'EXPENSE',
      items: [{ merchant: '냉면', amount: 12_000, count: 1 }],
    });
    problemOf(
      await premium.api.ledger.stats.merchants({ query: { from: '2026-05-02', to: '2026-05-01' } }),
      400,
      'VALIDATION_FAILED',
    );
  });
});

describe('statement count', () => {
  test('each statistics answer is one statement', async ({ app, premium }) => {
    await ledger(app, premium);
    const execute = vi.spyOn(app.services.statistics.deps.reader, 'execute');
    try {
      const { stats } = premium.api.ledger;
      const calls = [
        () => stats.monthly({ query: { year: 2026, month: 5 } }),
        () => stats.yearly({ query: { year: 2026 } }),
        () => stats.trend({ query: { months: 36 } }),
        () => stats.merchants({ query: {} }),
      ];
      for (const call of calls) {
        execute.mockClear();
        expect((await call()).status).toBe(200);
        expect(execute).toHaveBeenCalledTimes(1);
      }
    } finally {
      execute.mockRestore();
    }
  });
});
