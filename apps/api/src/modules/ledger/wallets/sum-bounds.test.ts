import { ledgerVolume } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { seedCategory } from '../entries/ledger.fixture.js';

// Issue 17 item 7: each amount was accepted, but their sums went past Number.MAX_SAFE_INTEGER and every read
// that carried a sum answered 500 until the rows were deleted.
const MAX = Number.MAX_SAFE_INTEGER;
const HALF = Math.floor(MAX / 2) + 1; // two of these add up past MAX

/** Every read issue 17 found answering 500: each must answer 200. */
async function readsAnswer(caller: Caller) {
  const wallets = bodyOf(await caller.api.ledger.wallets.list(), 200);
  for (const wallet of wallets.items) bodyOf(await caller.api.ledger.wallets.get({ params: { id: wallet.id } }), 200);
  bodyOf(await caller.api.ledger.entries.list({ query: {} }), 200);
  bodyOf(await caller.api.ledger.entries.list({ query: { type: 'INCOME' } }), 200);
  bodyOf(await caller.api.ledger.budgets.list({ query: { year: 2026, month: 3 } }), 200);
  bodyOf(await caller.api.ledger.budgets.listOnetime({ query: { from: '2026-01-01', to: '2026-12-31' } }), 200);
  bodyOf(await caller.api.ledger.changes.list({ query: {} }), 200);
  bodyOf(await caller.api.ledger.wallets.netWorth(), 200);
}

const income = (amount: number, accountId?: number) =>
  ({ body: { type: 'INCOME', amount, date: '2026-03-10', ...(accountId ? { accountId } : {}) } }) as const;

describe('sums past 2^53 − 1 are refused at the write, never 500 on read', () => {
  test('entries: the one that would overflow is 400 AMOUNT_OUT_OF_RANGE, on the same wallet or another', async ({
    premium,
  }) => {
    const a = bodyOf(await premium.api.ledger.wallets.create({ body: { name: 'A', type: 'BANK' } }), 201);
    const b = bodyOf(await premium.api.ledger.wallets.create({ body: { name: 'B', type: 'BANK' } }), 201);
    bodyOf(await premium.api.ledger.entries.create(income(HALF, a.id)), 201);
    problemOf(await premium.api.ledger.entries.create(income(HALF, a.id)), 400, 'AMOUNT_OUT_OF_RANGE');
    // Another wallet: each balance would fit, the entry totals would not.
    problemOf(await premium.api.ledger.entries.create(income(HALF, b.id)), 400, 'AMOUNT_OUT_OF_RANGE');
    problemOf(await premium.api.ledger.entries.create(income(HALF)), 400, 'AMOUNT_OUT_OF_RANGE');
    // What fits still goes in, to the last unit.
    const last = bodyOf(await premium.api.ledger.entries.create(income(MAX - HALF, b.id)), 201);
    problemOf(await premium.api.ledger.entries.create(income(1)), 400, 'AMOUNT_OUT_OF_RANGE');
    await readsAnswer(premium);
    const list = bodyOf(await premium.api.ledger.entries.list({ query: {} }), 200);
    expect(list.incomeTotal).toBe(MAX);
    // Raising an amount is refused; deleting makes room again.
    problemOf(
      await premium.api.ledger.entries.update({ params: { id: last.id }, body: { amount: MAX - HALF + 1 } }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    await premium.api.ledger.entries.delete({ params: { id: last.id } });
    bodyOf(await premium.api.ledger.entries.create(income(5)), 201);
  });

  test('wallet opening balances and values count: a wallet or entry past the bound is refused', async ({ premium }) => {
    bodyOf(await premium.api.ledger.wallets.create({ body: { name: 'Rich', type: 'BANK', openingBalance: MAX } }), 201);
    problemOf(
      await premium.api.ledger.wallets.create({ body: { name: 'Debt', type: 'CASH', openingBalance: -1 } }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    problemOf(await premium.api.ledger.entries.create(income(1)), 400, 'AMOUNT_OUT_OF_RANGE');
    await readsAnswer(premium);
  });

  test('raising a wallet’s opening balance or a budget past the bound is refused; lowering works', async ({
    app,
    premium,
  }) => {
    await seedCategory(app, premium.id, 'Food');
    const wallet = bodyOf(await premium.api.ledger.wallets.create({ body: { name: 'W', type: 'BANK' } }), 201);
    bodyOf(await premium.api.ledger.entries.create(income(HALF, wallet.id)), 201);
    problemOf(
      await premium.api.ledger.wallets.update({ params: { id: wallet.id }, body: { openingBalance: -HALF } }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    bodyOf(await premium.api.ledger.wallets.update({ params: { id: wallet.id }, body: { openingBalance: 10 } }), 200);
    const budget = bodyOf(
      await premium.api.ledger.budgets.create({ body: { category: 'Food', year: 2026, month: 3, amount: 5 } }),
      201,
    );
    problemOf(
      await premium.api.ledger.budgets.update({ params: { id: budget.id }, body: { amount: HALF } }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    bodyOf(await premium.api.ledger.budgets.update({ params: { id: budget.id }, body: { amount: 1 } }), 200);
    await readsAnswer(premium);
  });

  test('budgets, expected income and one-time budgets count too', async ({ app, premium }) => {
    await seedCategory(app, premium.id, 'Food');
    await seedCategory(app, premium.id, 'Rent');
    const budget = { year: 2026, month: 3, amount: HALF };
    bodyOf(await premium.api.ledger.budgets.create({ body: { ...budget, category: 'Food' } }), 201);
    problemOf(
      await premium.api.ledger.budgets.create({ body: { ...budget, category: 'Rent' } }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    problemOf(
      await premium.api.ledger.budgets.copy({ body: { fromYear: 2026, fromMonth: 3, toYear: 2026, toMonth: 4 } }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    problemOf(
      await premium.api.ledger.budgets.setIncome({ body: { year: 2026, month: 3, amount: HALF } }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    problemOf(
      await premium.api.ledger.budgets.createOnetime({
        body: { name: 'Trip', amount: HALF, startDate: '2026-03-01', endDate: '2026-03-31' },
      }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    bodyOf(
      await premium.api.ledger.entries.create({
        body: { type: 'EXPENSE', amount: MAX - HALF, date: '2026-03-02', category: 'Food' },
      }),
      201,
    );
    await readsAnswer(premium);
  });

  test('concurrent writes cannot both pass the bound', async ({ app, premium }) => {
    const quarter = Math.floor(MAX / 4);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => premium.api.ledger.entries.create(income(quarter))),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(4);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect([refused.status, (refused.body as { code: string }).code]).toEqual([400, 'AMOUNT_OUT_OF_RANGE']);
    }
    const [volume] = await app.db.select().from(ledgerVolume).where(eq(ledgerVolume.memberId, premium.id));
    expect(volume!.volume).toBe(String(4 * quarter));
    await readsAnswer(premium);
  });

  test('a restore whose amounts add up past the bound is 400 and changes nothing', async ({ premium }) => {
    bodyOf(await premium.api.ledger.entries.create(income(7)), 201);
    const entries = [
      { type: 'INCOME', amount: HALF, date: '2026-03-01' },
      { type: 'EXPENSE', amount: HALF, date: '2026-03-02' },
    ] as const;
    problemOf(await premium.api.ledger.backup.restore({ body: { entries: [...entries] } }), 400, 'AMOUNT_OUT_OF_RANGE');
    // A wallet's opening balance and an entry elsewhere (each balance fits, the sum does not).
    problemOf(
      await premium.api.ledger.backup.restore({
        body: {
          accounts: [{ name: 'W', type: 'BANK', openingBalance: MAX }],
          entries: [{ type: 'EXPENSE', amount: 10, date: '2026-03-01' }],
        },
      }),
      400,
      'AMOUNT_OUT_OF_RANGE',
    );
    const list = bodyOf(await premium.api.ledger.entries.list({ query: {} }), 200);
    expect(list.items.map((e) => e.amount)).toEqual([7]);
    await readsAnswer(premium);
  });
});
