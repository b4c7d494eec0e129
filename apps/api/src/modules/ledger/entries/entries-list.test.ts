import type { EntryListQuery, EntryPage } from '@nestegg/contract';
import { entryTag } from '@nestegg/db';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { encodeCursor } from '../../../lib/cursor.js';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { seedCategory, seedEntries, seedTag, seedWallet } from './ledger.fixture.js';

type Query = Partial<Record<keyof EntryListQuery, string>>;

async function listOf(caller: Caller, query: Query = {}): Promise<EntryPage> {
  return bodyOf(await caller.api.ledger.entries.list({ query: query as never }), 200);
}

/** The ids a filter lists (one page of 100). */
async function idsOf(caller: Caller, query: Query = {}): Promise<number[]> {
  return (await listOf(caller, { size: '100', ...query })).items.map((item) => item.id);
}

/** Statements that touch the ledger while `run` runs (postgres.js reads `options.debug` on every query). */
async function ledgerStatementsDuring(app: FastifyInstance, run: () => Promise<unknown>): Promise<string[]> {
  const options = app.sql.options as { debug?: unknown };
  const seen: string[] = [];
  const previous = options.debug;
  options.debug = (_connection: number, query: string) => seen.push(query);
  try {
    await run();
  } finally {
    options.debug = previous;
  }
  return seen.filter((query) => /account_entry|"account"|entry_tag/.test(query));
}

/**
 * A small ledger: a top-level category with a sub-category, a same-named sub-category of the other type,
 * two wallets, tags, pending entries and Korean memos.
 */
async function smallLedger(app: FastifyInstance, memberId: number) {
  const food = await seedCategory(app, memberId, 'Food');
  await seedCategory(app, memberId, 'Cafe', 'EXPENSE', food);
  const side = await seedCategory(app, memberId, 'Side', 'INCOME');
  await seedCategory(app, memberId, 'Tips', 'INCOME', side);
  // Names are unique per type only: an INCOME 'Cafe' is not a child of the EXPENSE 'Food'.
  await seedCategory(app, memberId, 'Cafe', 'INCOME', side);
  const card = await seedWallet(app, memberId, 'CARD');
  const bank = await seedWallet(app, memberId, 'BANK');
  const travel = await seedTag(app, memberId, 'travel');
  const ids = await seedEntries(app, memberId, [
    {
      entryDate: '2024-03-01',
      type: 'EXPENSE',
      amount: 5_000,
      category: 'Food',
      accountId: card,
      memo: '김밥천국 강남점',
    },
    {
      entryDate: '2024-03-02',
      type: 'EXPENSE',
      amount: 4_500,
      category: 'Cafe',
      accountId: card,
      memo: 'Starbucks 역삼',
    },
    { entryDate: '2024-03-02', type: 'INCOME', amount: 300_000, category: 'Side', accountId: bank, memo: '100% bonus' },
    { entryDate: '2024-03-03', type: 'INCOME', amount: 20_000, category: 'Tips', accountId: bank, memo: 'tip_jar' },
    {
      entryDate: '2024-03-04',
      type: 'EXPENSE',
      amount: 7_000,
      category: 'Cafe',
      memo: 'starbucks 강남',
      pending: true,
    },
    { entryDate: '2024-03-05', type: 'EXPENSE', amount: 9_000, category: null, accountId: bank, memo: null },
    { entryDate: '2024-04-01', type: 'EXPENSE', amount: 1_000, category: 'Food', accountId: card, memo: 'back\\slash' },
    { entryDate: '2024-02-01', type: 'INCOME', amount: 2_000, category: 'Cafe', accountId: bank, memo: 'cafe resale' },
  ]);
  const [kimbap, starbucks, bonus, tips, pendingCafe, uncategorised, april, cafeIncome] = ids as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  await app.db.insert(entryTag).values([
    { memberId, entryId: starbucks, tagId: travel },
    { memberId, entryId: pendingCafe, tagId: travel },
  ]);
  return { card, bank, kimbap, starbucks, bonus, tips, pendingCafe, uncategorised, april, cafeIncome };
}

describe('entry list filters', () => {
  test('each filter alone, newest date first then newest id', async ({ app, premium, other }) => {
    const l = await smallLedger(app, premium.id);
    await seedEntries(app, other.id, [{ entryDate: '2024-03-03', memo: 'starbucks' }]);
    const newestFirst = [l.april, l.uncategorised, l.pendingCafe, l.tips, l.bonus, l.starbucks, l.kimbap, l.cafeIncome];
    expect(await idsOf(premium)).toEqual(newestFirst);
    expect(await idsOf(premium, { from: '2024-03-02', to: '2024-03-04' })).toEqual([
      l.pendingCafe,
      l.tips,
      l.bonus,
      l.starbucks,
    ]);
    expect(await idsOf(premium, { type: 'INCOME' })).toEqual([l.tips, l.bonus, l.cafeIncome]);
    expect(await idsOf(premium, { category: 'Food' })).toEqual([l.april, l.pendingCafe, l.starbucks, l.kimbap]);
    expect(await idsOf(premium, { category: 'Cafe' })).toEqual([l.pendingCafe, l.starbucks, l.cafeIncome]);
    expect(await idsOf(premium, { category: 'Side' })).toEqual([l.tips, l.bonus, l.cafeIncome]);
    expect(await idsOf(premium, { accountId: String(l.bank) })).toEqual([
      l.uncategorised,
      l.tips,
      l.bonus,
      l.cafeIncome,
    ]);
    expect(await idsOf(premium, { tag: 'travel' })).toEqual([l.pendingCafe, l.starbucks]);
    expect(await idsOf(premium, { pending: 'true' })).toEqual([l.pendingCafe]);
    expect(await idsOf(premium, { pending: 'false' })).toEqual(newestFirst.filter((id) => id !== l.pendingCafe));
  });

  test('q searches the memo case-insensitively, Korean included, with %, _ and \\ taken literally', async ({
    app,
    premium,
  }) => {
    const l = await smallLedger(app, premium.id);
    expect(await idsOf(premium, { q: 'STARBUCKS' })).toEqual([l.pendingCafe, l.starbucks]);
    expect(await idsOf(premium, { q: '강남' })).toEqual([l.pendingCafe, l.kimbap]);
    expect(await idsOf(premium, { q: '김밥' })).toEqual([l.kimbap]);
    expect(await idsOf(premium, { q: '%' })).toEqual([l.bonus]);
    expect(await idsOf(premium, { q: '_' })).toEqual([l.tips]);
    expect(await idsOf(premium, { q: '\\' })).toEqual([l.april]);
    expect(await idsOf(premium, { q: 'p_j' })).toEqual([l.tips]);
    expect(await idsOf(premium, { q: '0_ b' })).toEqual([]);
    expect(await idsOf(premium, { q: '1%s' })).toEqual([]);
    expect(await idsOf(premium, { q: 'nothing like it' })).toEqual([]);
  });

  test('filters combine', async ({ app, premium }) => {
    const l = await smallLedger(app, premium.id);
    expect(await idsOf(premium, { category: 'Food', accountId: String(l.card), from: '2024-03-02' })).toEqual([
      l.april,
      l.starbucks,
    ]);
    expect(await idsOf(premium, { q: 'starbucks', tag: 'travel', pending: 'false' })).toEqual([l.starbucks]);
    expect(await idsOf(premium, { type: 'INCOME', category: 'Food' })).toEqual([]);
    expect(await idsOf(premium, { type: 'EXPENSE', to: '2024-03-31', pending: 'false', category: 'Food' })).toEqual([
      l.starbucks,
      l.kimbap,
    ]);
  });

  test('an unknown category or tag lists nothing; another member’s wallet is 404', async ({ app, premium, other }) => {
    await smallLedger(app, premium.id);
    const theirs = await seedWallet(app, other.id, 'BANK');
    expect(await idsOf(premium, { category: 'Nope' })).toEqual([]);
    expect(await idsOf(premium, { tag: 'nope' })).toEqual([]);
    problemOf(await premium.api.ledger.entries.list({ query: { accountId: theirs } }), 404, 'NOT_FOUND');
    const first = await listOf(premium, { size: '1' });
    problemOf(
      await premium.api.ledger.entries.list({ query: { accountId: theirs, cursor: first.nextCursor! } }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('entry list totals', () => {
  test('cover the whole filter: total counts every match, income and expense only confirmed ones', async ({
    app,
    premium,
  }) => {
    await smallLedger(app, premium.id);
    const all = await listOf(premium, { size: '2' });
    expect(all).toMatchObject({ page: 1, size: 2, total: 8, incomeTotal: 322_000, expenseTotal: 19_500 });
    expect(all.items).toHaveLength(2);
    expect(await listOf(premium, { size: '2', page: '5' })).toMatchObject({
      items: [],
      total: 8,
      incomeTotal: 322_000,
      expenseTotal: 19_500,
      nextCursor: null,
    });
    expect(await listOf(premium, { category: 'Food' })).toMatchObject({
      total: 4,
      incomeTotal: 0,
      expenseTotal: 10_500,
    });
    expect(await listOf(premium, { pending: 'true' })).toMatchObject({ total: 1, incomeTotal: 0, expenseTotal: 0 });
    expect(await listOf(premium, { q: 'nothing' })).toMatchObject({ total: 0, incomeTotal: 0, expenseTotal: 0 });
  });
});

describe('entry list paging', () => {
  test('a cursor walk of 50 entries by 7 returns every entry once, in order; totals only on the first page', async ({
    app,
    premium,
  }) => {
    // 50 entries over 20 days (ties on the date are ordered by id), inserted out of date order.
    const rows = Array.from({ length: 50 }, (_, index) => ({
      entryDate: `2024-06-${String(((index * 7) % 20) + 1).padStart(2, '0')}`,
      amount: index + 1,
    }));
    const ids = await seedEntries(app, premium.id, rows);
    const expected = ids
      .map((id, index) => ({ id, date: rows[index]!.entryDate }))
      .sort((a, b) => b.date.localeCompare(a.date) || b.id - a.id)
      .map((row) => row.id);

    const seen: number[] = [];
    let page = await listOf(premium, { size: '7' });
    expect(page).toMatchObject({ total: 50, expenseTotal: (50 * 51) / 2, incomeTotal: 0 });
    let pages = 1;
    seen.push(...page.items.map((item) => item.id));
    while (page.nextCursor) {
      page = await listOf(premium, { size: '7', cursor: page.nextCursor });
      expect(page).toMatchObject({ total: null, incomeTotal: null, expenseTotal: null });
      seen.push(...page.items.map((item) => item.id));
      pages += 1;
    }
    expect(pages).toBe(8);
    expect(seen).toEqual(expected);

    // Offset pages carry a cursor too, and it continues where the page ended.
    const second = await listOf(premium, { size: '7', page: '2' });
    expect(second.items.map((item) => item.id)).toEqual(expected.slice(7, 14));
    const third = await listOf(premium, { size: '7', cursor: second.nextCursor! });
    expect(third.items.map((item) => item.id)).toEqual(expected.slice(14, 21));
  });

  test('a category filter pages (offset and cursor) through its sub-categories in date order', async ({
    app,
    premium,
  }) => {
    const food = await seedCategory(app, premium.id, 'Food');
    await seedCategory(app, premium.id, 'Cafe', 'EXPENSE', food);
    const categories = ['Food', 'Cafe', 'Rent', null] as const;
    const rows = Array.from({ length: 40 }, (_, index) => ({
      entryDate: `2024-08-${String((index % 9) + 1).padStart(2, '0')}`,
      category: categories[index % 4],
      type: index % 8 === 1 ? ('INCOME' as const) : ('EXPENSE' as const),
      amount: 100 + index,
    }));
    const ids = await seedEntries(app, premium.id, rows);
    const matching = ids
      .map((id, index) => ({ id, ...rows[index]! }))
      .filter((row) => row.category === 'Food' || (row.category === 'Cafe' && row.type === 'EXPENSE'))
      .sort((a, b) => b.entryDate.localeCompare(a.entryDate) || b.id - a.id);
    const walked: number[] = [];
    let page = await listOf(premium, { category: 'Food', size: '3' });
    expect(page).toMatchObject({
      total: matching.length,
      expenseTotal: matching.reduce((sum, row) => sum + row.amount, 0),
      incomeTotal: 0,
    });
    walked.push(...page.items.map((item) => item.id));
    while (page.nextCursor) {
      page = await listOf(premium, { category: 'Food', size: '3', cursor: page.nextCursor });
      walked.push(...page.items.map((item) => item.id));
    }
    expect(walked).toEqual(matching.map((row) => row.id));
    const third = await listOf(premium, { category: 'Food', size: '3', page: '3' });
    expect(third.items.map((item) => item.id)).toEqual(walked.slice(6, 9));
    const incomeCafe = await listOf(premium, { category: 'Cafe', type: 'INCOME' });
    expect(incomeCafe).toMatchObject({ total: 5, incomeTotal: 5 * 100 + (1 + 9 + 17 + 25 + 33), expenseTotal: 0 });
  });

  test('a tag filter pages (offset and cursor) in date order, with the other filters', async ({ app, premium }) => {
    const tagId = await seedTag(app, premium.id, 'trip');
    const rows = Array.from({ length: 30 }, (_, index) => ({
      entryDate: `2024-09-${String((index % 7) + 1).padStart(2, '0')}`,
      type: index % 5 === 0 ? ('INCOME' as const) : ('EXPENSE' as const),
      amount: 10 + index,
    }));
    const ids = await seedEntries(app, premium.id, rows);
    const tagged = ids.filter((_, index) => index % 3 !== 0);
    await app.db.insert(entryTag).values(tagged.map((entryId) => ({ memberId: premium.id, entryId, tagId })));
    const expected = ids
      .map((id, index) => ({ id, ...rows[index]! }))
      .filter((row) => tagged.includes(row.id) && row.type === 'EXPENSE')
      .sort((a, b) => b.entryDate.localeCompare(a.entryDate) || b.id - a.id);
    const walked: number[] = [];
    let page = await listOf(premium, { tag: 'trip', type: 'EXPENSE', size: '4' });
    expect(page).toMatchObject({
      total: expected.length,
      expenseTotal: expected.reduce((sum, r) => sum + r.amount, 0),
    });
    walked.push(...page.items.map((item) => item.id));
    while (page.nextCursor) {
      page = await listOf(premium, { tag: 'trip', type: 'EXPENSE', size: '4', cursor: page.nextCursor });
      walked.push(...page.items.map((item) => item.id));
    }
    expect(walked).toEqual(expected.map((row) => row.id));
    const second = await listOf(premium, { tag: 'trip', type: 'EXPENSE', size: '4', page: '2' });
    expect(second.items.map((item) => item.id)).toEqual(walked.slice(4, 8));
    expect(second.items.every((item) => item.tags.join() === 'trip')).toBe(true);
  });

  test('a cursor continues by position under another filter', async ({ app, premium }) => {
    const ids = await seedEntries(app, premium.id, [
      { entryDate: '2024-01-01', type: 'INCOME' },
      { entryDate: '2024-01-02', type: 'EXPENSE' },
      { entryDate: '2024-01-03', type: 'INCOME' },
      { entryDate: '2024-01-04', type: 'EXPENSE' },
    ]);
    const first = await listOf(premium, { size: '1' });
    expect(first.items.map((item) => item.id)).toEqual([ids[3]]);
    const incomes = await listOf(premium, { type: 'INCOME', cursor: first.nextCursor! });
    expect(incomes.items.map((item) => item.id)).toEqual([ids[2], ids[0]]);
    expect(incomes.nextCursor).toBeNull();
  });

  test('offset pages deeper than 10,000 rows are refused; a garbage cursor is 400 CURSOR_INVALID', async ({
    premium,
  }) => {
    bodyOf(await premium.api.ledger.entries.list({ query: { page: 100, size: 100 } }), 200);
    problemOf(await premium.api.ledger.entries.list({ query: { page: 101, size: 100 } }), 400, 'OFFSET_TOO_DEEP');
    problemOf(await premium.api.ledger.entries.list({ query: { page: 10_001, size: 1 } }), 400, 'OFFSET_TOO_DEEP');
    for (const cursor of [
      'garbage',
      encodeCursor(['2024-01-01']),
      encodeCursor([7, 'x']),
      encodeCursor(['2024-02-30', 5]),
      encodeCursor(['yesterday', 5]),
      encodeCursor(['2024-01-01', 0]),
      encodeCursor(['2024-01-01', 2 ** 40]),
      Buffer.from('[2,"2024-01-01",5]').toString('base64url'),
    ]) {
      problemOf(await premium.api.ledger.entries.list({ query: { cursor } }), 400, 'CURSOR_INVALID');
    }
  });

  test('at most 2 ledger statements per list request whatever the page size, tags included', async ({
    app,
    premium,
  }) => {
    const tagId = await seedTag(app, premium.id, 'many');
    const wallet = await seedWallet(app, premium.id, 'BANK');
    const ids = await seedEntries(
      app,
      premium.id,
      Array.from({ length: 100 }, (_, index) => ({ entryDate: '2024-07-01', amount: index + 1, accountId: wallet })),
    );
    await app.db.insert(entryTag).values(ids.map((entryId) => ({ memberId: premium.id, entryId, tagId })));
    let page: EntryPage | undefined;
    const statements = await ledgerStatementsDuring(app, async () => {
      page = await listOf(premium, { size: '100', accountId: String(wallet), q: 'x', tag: 'many' });
    });
    expect(statements.length).toBeLessThanOrEqual(2);
    const firstPage = await listOf(premium, { size: '100', accountId: String(wallet) });
    expect(page?.items).toEqual([]);
    expect(firstPage.items).toHaveLength(100);
    expect(firstPage.items.every((item) => item.tags.join() === 'many')).toBe(true);
    const cursorStatements = await ledgerStatementsDuring(app, () =>
      listOf(premium, { size: '50', cursor: encodeCursor(['2024-07-01', ids[60]!]) }),
    );
    expect(cursorStatements).toHaveLength(1);
  });
});
