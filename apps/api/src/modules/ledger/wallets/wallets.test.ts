import { type CreateWalletRequest, FREE_WALLET_LIMITS } from '@nestegg/contract';
import { account, accountEntry, walletValueHistory } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

const create = async (caller: Caller, body: CreateWalletRequest) =>
  bodyOf(await caller.api.ledger.wallets.create({ body }), 201);

const rawWallet = async (app: FastifyInstance, id: number) =>
  (await app.db.select().from(account).where(eq(account.id, id)))[0]!;

/** Confirmed (or pending) entries written straight to the table: the balance triggers do the rest. */
async function addEntries(
  app: FastifyInstance,
  memberId: number,
  accountId: number,
  entries: { type: 'INCOME' | 'EXPENSE'; amount: number; pending?: boolean }[],
) {
  await app.db
    .insert(accountEntry)
    .values(entries.map((entry) => ({ memberId, accountId, entryDate: '2026-01-15', pending: false, ...entry })));
}

describe('wallet CRUD', () => {
  test('creates every kind of wallet with all its fields, each one last', async ({ premium }) => {
    const cash = await create(premium, { name: 'Pocket', type: 'CASH' });
    expect(cash).toMatchObject({
      name: 'Pocket',
      type: 'CASH',
      accountNumber: null,
      cardCompany: null,
      openingBalance: 0,
      balance: 0,
      sortOrder: 0,
      loanAmount: null,
      loanRate: null,
      loanMethod: null,
      loanMonths: null,
      loanStart: null,
      manualValuation: false,
      currentValue: null,
    });
    const card = await create(premium, { name: 'Blue card', type: 'CARD', cardCompany: 'Hana', accountNumber: '1234' });
    expect(card).toMatchObject({ type: 'CARD', cardCompany: 'Hana', accountNumber: '1234', sortOrder: 1 });
    const loan = await create(premium, {
      name: 'Mortgage',
      type: 'LOAN',
      loanAmount: 300_000_000,
      loanRate: '4.25',
      loanMethod: 'EQUAL_PAYMENT',
      loanMonths: 360,
      loanStart: '2025-06-10',
    });
    expect(loan).toMatchObject({
      loanAmount: 300_000_000,
      loanRate: '4.2500',
      loanMethod: 'EQUAL_PAYMENT',
      loanMonths: 360,
      loanStart: '2025-06-10',
      sortOrder: 2,
    });
    const minus = await create(premium, { name: 'Overdraft', type: 'MINUS', openingBalance: -250_000 });
    expect(minus).toMatchObject({ type: 'MINUS', openingBalance: -250_000, balance: -250_000, sortOrder: 3 });
    const pension = await create(premium, {
      name: 'Pension',
      type: 'PENSION',
      manualValuation: true,
      currentValue: 12_000_000,
    });
    expect(pension).toMatchObject({ manualValuation: true, currentValue: 12_000_000, sortOrder: 4 });

    const list = bodyOf(await premium.api.ledger.wallets.list(), 200);
    expect(list.items.map((wallet) => wallet.name)).toEqual([
      'Pocket',
      'Blue card',
      'Mortgage',
      'Overdraft',
      'Pension',
    ]);
    expect(bodyOf(await premium.api.ledger.wallets.get({ params: { id: loan.id } }), 200)).toEqual(loan);
  });

  test('updates only the fields sent; null clears', async ({ free }) => {
    const wallet = await create(free, {
      name: 'Salary',
      type: 'BANK',
      accountNumber: '110-123-456789',
      cardCompany: 'Shinhan',
      openingBalance: 1000,
    });
    const renamed = bodyOf(
      await free.api.ledger.wallets.update({ params: { id: wallet.id }, body: { name: 'Main', cardCompany: null } }),
      200,
    );
    expect(renamed).toMatchObject({
      name: 'Main',
      type: 'BANK',
      accountNumber: '110-123-456789',
      cardCompany: null,
      openingBalance: 1000,
    });
    const cleared = bodyOf(
      await free.api.ledger.wallets.update({ params: { id: wallet.id }, body: { accountNumber: '' } }),
      200,
    );
    expect(cleared.accountNumber).toBeNull();
    expect(bodyOf(await free.api.ledger.wallets.update({ params: { id: wallet.id }, body: {} }), 200)).toMatchObject({
      name: 'Main',
    });
  });

  test('names are unique per member: 409 DUPLICATE_NAME on create and rename; another member may reuse one', async ({
    free,
    other,
  }) => {
    const first = await create(free, { name: 'Wallet', type: 'CASH' });
    const second = await create(free, { name: 'Second', type: 'CASH' });
    problemOf(await free.api.ledger.wallets.create({ body: { name: 'Wallet', type: 'BANK' } }), 409, 'DUPLICATE_NAME');
    problemOf(
      await free.api.ledger.wallets.update({ params: { id: second.id }, body: { name: 'Wallet' } }),
      409,
      'DUPLICATE_NAME',
    );
    expect(bodyOf(await free.api.ledger.wallets.get({ params: { id: first.id } }), 200).name).toBe('Wallet');
    await create(other, { name: 'Wallet', type: 'CASH' });
  });

  test('loan terms belong to LOAN wallets and come together', async ({ premium }) => {
    problemOf(
      await premium.api.ledger.wallets.create({ body: { name: 'Half loan', type: 'LOAN', loanAmount: 1000 } }),
      400,
      'VALIDATION_FAILED',
    );
    const refused = problemOf(
      await premium.api.ledger.wallets.create({
        body: { name: 'Bank loan', type: 'BANK', loanAmount: 1000, loanMonths: 12 },
      }),
      400,
      'VALIDATION_FAILED',
    );
    expect(refused.errors?.map((issue) => issue.path)).toEqual(['body.loanAmount', 'body.loanMonths']);
    const loan = await create(premium, {
      name: 'Car',
      type: 'LOAN',
      loanAmount: 12_000_000,
      loanMethod: 'BULLET',
      loanMonths: 24,
      loanStart: '2026-01-01',
    });
    expect(loan.loanRate).toBeNull();
    // Changing the type away from LOAN with the terms still stored, or clearing one term, is refused.
    problemOf(
      await premium.api.ledger.wallets.update({ params: { id: loan.id }, body: { type: 'BANK' } }),
      400,
      'VALIDATION_FAILED',
    );
    problemOf(
      await premium.api.ledger.wallets.update({ params: { id: loan.id }, body: { loanMonths: null } }),
      400,
      'VALIDATION_FAILED',
    );
    const changed = bodyOf(
      await premium.api.ledger.wallets.update({
        params: { id: loan.id },
        body: { loanMethod: 'EQUAL_PRINCIPAL', loanRate: '3.5', loanMonths: 36 },
      }),
      200,
    );
    expect(changed).toMatchObject({ loanMethod: 'EQUAL_PRINCIPAL', loanRate: '3.5000', loanMonths: 36 });
    const plain = bodyOf(
      await premium.api.ledger.wallets.update({
        params: { id: loan.id },
        body: { type: 'OTHER', loanAmount: null, loanRate: null, loanMethod: null, loanMonths: null, loanStart: null },
      }),
      200,
    );
    expect(plain).toMatchObject({ type: 'OTHER', loanAmount: null, loanMonths: null });
  });

  test('an account number with characters outside letters, digits, spaces and . - / is refused', async ({ free }) => {
    problemOf(
      await free.api.ledger.wallets.create({ body: { name: 'Odd', type: 'BANK', accountNumber: 'enc:v1:x:y:z' } }),
      400,
      'VALIDATION_FAILED',
    );
  });

  test('unknown wallets answer 404', async ({ free }) => {
    const params = { id: 2_000_000_000 };
    problemOf(await free.api.ledger.wallets.get({ params }), 404, 'NOT_FOUND');
    problemOf(await free.api.ledger.wallets.update({ params, body: { name: 'x' } }), 404, 'NOT_FOUND');
    problemOf(await free.api.ledger.wallets.delete({ params }), 404, 'NOT_FOUND');
  });

  test('without a configured key the account number is stored as it is', async ({ app, free }) => {
    const wallet = await create(free, { name: 'Plain', type: 'BANK', accountNumber: '333-22-1111' });
    expect((await rawWallet(app, wallet.id)).accountNumber).toBe('333-22-1111');
  });
});

describe('wallet delete', () => {
  test("keeps the wallet's entries without a wallet and drops its value history", async ({ app, premium }) => {
    const wallet = await create(premium, { name: 'Old bank', type: 'BANK' });
    const pension = await create(premium, { name: 'Pension', type: 'PENSION', manualValuation: true, currentValue: 9 });
    await addEntries(app, premium.id, wallet.id, [{ type: 'INCOME', amount: 700 }]);
    bodyOf(await premium.api.ledger.wallets.delete({ params: { id: wallet.id } }), 204);
    bodyOf(await premium.api.ledger.wallets.delete({ params: { id: pension.id } }), 204);

    const entries = await app.db.select().from(accountEntry).where(eq(accountEntry.memberId, premium.id));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ accountId: null, amount: 700 });
    expect(await app.db.select().from(walletValueHistory).where(eq(walletValueHistory.memberId, premium.id))).toEqual(
      [],
    );
    problemOf(await premium.api.ledger.wallets.get({ params: { id: wallet.id } }), 404, 'NOT_FOUND');
    problemOf(await premium.api.ledger.wallets.delete({ params: { id: wallet.id } }), 404, 'NOT_FOUND');
  });
});

describe('wallet reorder', () => {
  test('takes the full new order of all wallets', async ({ free }) => {
    const [a, b, c] = [
      await create(free, { name: 'A', type: 'CASH' }),
      await create(free, { name: 'B', type: 'BANK' }),
      await create(free, { name: 'C', type: 'CARD' }),
    ];
    bodyOf(await free.api.ledger.wallets.reorder({ body: { ids: [c.id, a.id, b.id] } }), 204);
    const list = bodyOf(await free.api.ledger.wallets.list(), 200).items;
    expect(list.map((wallet) => [wallet.name, wallet.sortOrder])).toEqual([
      ['C', 0],
      ['A', 1],
      ['B', 2],
    ]);
    // A new wallet still goes last.
    expect((await create(free, { name: 'D', type: 'CASH' })).sortOrder).toBe(3);
  });

  test('refuses a partial list, a foreign id and repeats, changing nothing', async ({ free, other }) => {
    const a = await create(free, { name: 'A', type: 'CASH' });
    const b = await create(free, { name: 'B', type: 'BANK' });
    const foreign = await create(other, { name: 'X', type: 'CASH' });
    problemOf(await free.api.ledger.wallets.reorder({ body: { ids: [b.id] } }), 400, 'INVALID_REORDER');
    problemOf(await free.api.ledger.wallets.reorder({ body: { ids: [b.id, foreign.id] } }), 400, 'INVALID_REORDER');
    problemOf(
      await free.api.ledger.wallets.reorder({ body: { ids: [b.id, a.id, foreign.id] } }),
      400,
      'INVALID_REORDER',
    );
    problemOf(await free.api.ledger.wallets.reorder({ body: { ids: [b.id, b.id] } }), 400, 'VALIDATION_FAILED');
    const list = bodyOf(await free.api.ledger.wallets.list(), 200).items;
    expect(list.map((wallet) => wallet.name)).toEqual(['A', 'B']);
    expect(bodyOf(await other.api.ledger.wallets.get({ params: { id: foreign.id } }), 200).sortOrder).toBe(0);
  });
});

describe('FREE per-type wallet limit', () => {
  const limit = FREE_WALLET_LIMITS.CASH;

  test(`a FREE member holds ${limit} wallets of a type; the next is 400 WALLET_LIMIT, other types still pass`, async ({
    free,
  }) => {
    for (let index = 0; index < limit; index += 1) await create(free, { name: `Cash ${index}`, type: 'CASH' });
    problemOf(await free.api.ledger.wallets.create({ body: { name: 'One more', type: 'CASH' } }), 400, 'WALLET_LIMIT');
    await create(free, { name: 'Bank', type: 'BANK' });
  });

  test('is checked on a type change too', async ({ free }) => {
    for (let index = 0; index < limit; index += 1) await create(free, { name: `Cash ${index}`, type: 'CASH' });
    const bank = await create(free, { name: 'Bank', type: 'BANK' });
    problemOf(
      await free.api.ledger.wallets.update({ params: { id: bank.id }, body: { type: 'CASH' } }),
      400,
      'WALLET_LIMIT',
    );
    expect(bodyOf(await free.api.ledger.wallets.get({ params: { id: bank.id } }), 200).type).toBe('BANK');
    // Sending the type a wallet already has is no change.
    const cash = bodyOf(await free.api.ledger.wallets.list(), 200).items[0]!;
    bodyOf(
      await free.api.ledger.wallets.update({ params: { id: cash.id }, body: { type: 'CASH', name: 'Renamed' } }),
      200,
    );
    bodyOf(await free.api.ledger.wallets.update({ params: { id: bank.id }, body: { type: 'SAVINGS' } }), 200);
  });

  test('PREMIUM and ADMIN members have no limit', async ({ premium, admin }) => {
    for (const caller of [premium, admin]) {
      for (let index = 0; index <= limit + 1; index += 1) await create(caller, { name: `Cash ${index}`, type: 'CASH' });
    }
  });

  test(`${limit + 2} parallel creates by a FREE member: exactly ${limit} succeed, in distinct places`, async ({
    free,
  }) => {
    const answers = await Promise.all(
      Array.from({ length: limit + 2 }, (_, index) =>
        free.api.ledger.wallets.create({ body: { name: `Race ${index}`, type: 'SAVINGS' } }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(limit);
    for (const answer of answers.filter((one) => one.status !== 201)) problemOf(answer, 400, 'WALLET_LIMIT');
    const list = bodyOf(await free.api.ledger.wallets.list(), 200).items;
    expect(list.map((wallet) => wallet.sortOrder)).toEqual(Array.from({ length: limit }, (_, index) => index));
  });
});

describe('wallet balance', () => {
  test('is the opening balance plus confirmed incomes minus confirmed expenses; MINUS may go negative', async ({
    app,
    free,
  }) => {
    const wallet = await create(free, { name: 'Checking', type: 'MINUS', openingBalance: 10_000 });
    await addEntries(app, free.id, wallet.id, [
      { type: 'INCOME', amount: 5000 },
      { type: 'EXPENSE', amount: 30_000 },
      { type: 'EXPENSE', amount: 999, pending: true },
    ]);
    expect(bodyOf(await free.api.ledger.wallets.get({ params: { id: wallet.id } }), 200).balance).toBe(-15_000);
    const moved = bodyOf(
      await free.api.ledger.wallets.update({ params: { id: wallet.id }, body: { openingBalance: 20_000 } }),
      200,
    );
    expect(moved).toMatchObject({ openingBalance: 20_000, balance: -5000 });
  });
});
