/** MINUS wallets as credit lines (issue 19, item 7; decision L33). */
import { type BackupInput, BackupObjectSchema, type CreateWalletRequest } from '@nestegg/contract';
import { accountEntry, walletLoanHistory } from '@nestegg/db';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

const create = async (caller: Caller, body: CreateWalletRequest) =>
  bodyOf(await caller.api.ledger.wallets.create({ body }), 201);

/** Confirmed entries written straight to the table: the balance triggers do the rest. */
async function addEntries(
  app: FastifyInstance,
  caller: Caller,
  accountId: number,
  entries: { type: 'INCOME' | 'EXPENSE'; amount: number }[],
) {
  await app.db
    .insert(accountEntry)
    .values(
      entries.map((entry) => ({ memberId: caller.id, accountId, entryDate: '2026-01-15', pending: false, ...entry })),
    );
}

const historyOf = (app: FastifyInstance, caller: Caller, accountId: number) =>
  app.db
    .select({ loanAmount: walletLoanHistory.loanAmount, loanMethod: walletLoanHistory.loanMethod })
    .from(walletLoanHistory)
    .where(and(eq(walletLoanHistory.memberId, caller.id), eq(walletLoanHistory.accountId, accountId)));

/** The issue's body: a 10,000,000 line at 5.5 % for a year. */
const overdraft = {
  name: '마이너스통장',
  type: 'MINUS',
  loanAmount: 10_000_000,
  loanRate: '5.5',
  loanMethod: 'BULLET',
  loanMonths: 12,
  loanStart: '2026-01-02',
} as const satisfies CreateWalletRequest;

describe('a MINUS wallet is a credit line', () => {
  test('takes a limit, rate and term, and shows what is drawn, available and accruing', async ({ app, premium }) => {
    const line = await create(premium, overdraft);
    expect(line).toMatchObject({
      type: 'MINUS',
      balance: 0,
      loanAmount: 10_000_000,
      loanRate: '5.5000',
      loanMethod: 'BULLET',
      loanMonths: 12,
      loanStart: '2026-01-02',
      creditLine: {
        limit: 10_000_000,
        drawn: 0,
        available: 10_000_000,
        overLimit: 0,
        monthlyInterestEstimate: 0,
        maturityDate: '2027-01-02',
      },
    });

    await addEntries(app, premium, line.id, [{ type: 'EXPENSE', amount: 3_000_000 }]);
    const get = async () => bodyOf(await premium.api.ledger.wallets.get({ params: { id: line.id } }), 200);
    expect((await get()).creditLine).toEqual({
      limit: 10_000_000,
      drawn: 3_000_000,
      available: 7_000_000,
      overLimit: 0,
      monthlyInterestEstimate: 13_750, // 3,000,000 × 5.5 % / 12
      maturityDate: '2027-01-02',
    });
    // Truncated to whole units: 1,000,100 × 5.5 % / 12 = 4,583.79…
    await addEntries(app, premium, line.id, [{ type: 'INCOME', amount: 1_999_900 }]);
    expect((await get()).creditLine).toMatchObject({ drawn: 1_000_100, monthlyInterestEstimate: 4_583 });
    // Over the limit: nothing available, the excess shown.
    await addEntries(app, premium, line.id, [{ type: 'EXPENSE', amount: 9_499_900 }]);
    expect((await get()).creditLine).toMatchObject({ drawn: 10_500_000, available: 0, overLimit: 500_000 });
    // Paid back beyond zero: nothing drawn.
    await addEntries(app, premium, line.id, [{ type: 'INCOME', amount: 10_600_000 }]);
    expect((await get()).creditLine).toMatchObject({ drawn: 0, available: 10_000_000, monthlyInterestEstimate: 0 });

    // The list shows the same; other wallets and a MINUS wallet without a limit have no credit line.
    await create(premium, { name: 'Plain overdraft', type: 'MINUS', openingBalance: -5000 });
    await create(premium, { name: 'Cash', type: 'CASH' });
    const list = bodyOf(await premium.api.ledger.wallets.list(), 200).items;
    expect(list.map((wallet) => wallet.creditLine?.limit ?? null)).toEqual([10_000_000, null, null]);
  });

  test('a limit alone is a line without a term; terms are updated like any field', async ({ premium }) => {
    const line = await create(premium, { name: 'Line', type: 'MINUS', loanAmount: 5_000_000 });
    expect(line).toMatchObject({ loanMethod: null, loanRate: null });
    expect(line.creditLine).toMatchObject({ limit: 5_000_000, maturityDate: null, monthlyInterestEstimate: 0 });
    const changed = bodyOf(
      await premium.api.ledger.wallets.update({
        params: { id: line.id },
        body: { loanAmount: 8_000_000, loanRate: '6.1', loanMonths: 24, loanStart: '2026-03-31' },
      }),
      200,
    );
    expect(changed.creditLine).toMatchObject({ limit: 8_000_000, available: 8_000_000, maturityDate: '2028-03-31' });
  });

  test('refuses a repayment method, terms without a limit and half a term', async ({ premium }) => {
    const refused = async (body: Partial<CreateWalletRequest>) =>
      problemOf(
        await premium.api.ledger.wallets.create({ body: { name: 'Line', type: 'MINUS', ...body } }),
        400,
        'VALIDATION_FAILED',
      ).errors?.map((issue) => issue.path);
    expect(await refused({ ...overdraft, loanMethod: 'EQUAL_PAYMENT' })).toEqual(['body.loanMethod']);
    expect(await refused({ loanRate: '5.5' })).toEqual(['body.loanAmount']);
    expect(await refused({ loanAmount: 1000, loanMonths: 12 })).toEqual(['body.loanStart']);
    expect(await refused({ loanAmount: 1000, loanStart: '2026-01-02' })).toEqual(['body.loanMonths']);
    // Other types still take no loan terms.
    const bank = problemOf(
      await premium.api.ledger.wallets.create({ body: { ...overdraft, type: 'BANK' } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(bank.errors?.[0]?.message).toBe('loan terms are for LOAN and MINUS wallets only');
  });

  test('net worth counts what is drawn, never the limit, now and in the trend', async ({ app, premium }) => {
    const line = await create(premium, overdraft);
    await addEntries(app, premium, line.id, [{ type: 'EXPENSE', amount: 3_000_000 }]);
    await create(premium, { name: 'Bank', type: 'BANK', openingBalance: 1_000_000 });
    expect(bodyOf(await premium.api.ledger.wallets.netWorth(), 200)).toMatchObject({
      assets: 1_000_000,
      liabilities: 3_000_000,
      netWorth: -2_000_000,
      byType: [
        { type: 'BANK', amount: 1_000_000 },
        { type: 'MINUS', amount: -3_000_000 },
      ],
    });
    const points = bodyOf(await premium.api.ledger.wallets.netWorthTrend({ query: { months: 1 } }), 200).points;
    expect(points).toEqual([expect.objectContaining({ assets: 1_000_000, liabilities: 3_000_000 })]);
  });

  test('type changes: the loan history holds LOAN terms only, and a line becomes a loan only whole', async ({
    app,
    premium,
  }) => {
    const line = await create(premium, { ...overdraft, loanMonths: 120 });
    await addEntries(app, premium, line.id, [{ type: 'EXPENSE', amount: 3_000_000 }]);
    expect(await historyOf(app, premium, line.id)).toEqual([]);
    const update = (id: number, body: Parameters<typeof premium.api.ledger.wallets.update>[0]['body']) =>
      premium.api.ledger.wallets.update({ params: { id }, body });
    const liabilities = async () => bodyOf(await premium.api.ledger.wallets.netWorth(), 200).liabilities;
    expect(await liabilities()).toBe(3_000_000);

    // A line with its BULLET method becomes a loan (valued by its schedule) and its terms are recorded.
    const loan = bodyOf(await update(line.id, { type: 'LOAN' }), 200);
    expect(loan).toMatchObject({ type: 'LOAN', loanMethod: 'BULLET', creditLine: null });
    expect(await historyOf(app, premium, line.id)).toEqual([{ loanAmount: 10_000_000, loanMethod: 'BULLET' }]);
    expect(await liabilities()).toBe(10_000_000);

    // Back to a line: the recorded loan terms stay as they were, the balance values it again.
    const back = bodyOf(await update(line.id, { type: 'MINUS', loanAmount: 12_000_000 }), 200);
    expect(back.creditLine).toMatchObject({ limit: 12_000_000, drawn: 3_000_000, available: 9_000_000 });
    expect(await historyOf(app, premium, line.id)).toEqual([{ loanAmount: 10_000_000, loanMethod: 'BULLET' }]);
    expect(await liabilities()).toBe(3_000_000);

    // An amortising loan needs its method cleared (or BULLET) to become a line; a line without a method needs
    // one to become a loan; any other type takes no terms.
    const mortgage = await create(premium, {
      name: 'Mortgage',
      type: 'LOAN',
      loanAmount: 1_000_000,
      loanMethod: 'EQUAL_PAYMENT',
      loanMonths: 12,
      loanStart: '2026-01-02',
    });
    problemOf(await update(mortgage.id, { type: 'MINUS' }), 400, 'VALIDATION_FAILED');
    const converted = bodyOf(await update(mortgage.id, { type: 'MINUS', loanMethod: null }), 200);
    expect(converted.creditLine).toMatchObject({ limit: 1_000_000, maturityDate: '2027-01-02' });
    problemOf(await update(mortgage.id, { type: 'LOAN' }), 400, 'VALIDATION_FAILED');
    problemOf(await update(line.id, { type: 'BANK' }), 400, 'VALIDATION_FAILED');
    expect(await historyOf(app, premium, mortgage.id)).toEqual([
      { loanAmount: 1_000_000, loanMethod: 'EQUAL_PAYMENT' },
    ]);
  });
});

describe('credit lines in backup and restore', () => {
  test('round-trip their terms; the derived figures are not exported and come back computed', async ({
    app,
    premium,
  }) => {
    const line = await create(premium, overdraft);
    await addEntries(app, premium, line.id, [{ type: 'EXPENSE', amount: 3_000_000 }]);
    const exported = async () => {
      const { exportedAt: _at, ...rest } = bodyOf(await premium.api.ledger.backup.export(), 200);
      return rest;
    };
    const before = await exported();
    expect(BackupObjectSchema.parse(before)).toEqual(before); // no field the backup does not know
    expect((before.accounts as unknown[])[0]).toMatchObject({
      type: 'MINUS',
      loanAmount: 10_000_000,
      loanRate: '5.5000',
      loanMethod: 'BULLET',
      loanMonths: 12,
      loanStart: '2026-01-02',
      balance: -3_000_000,
    });
    expect((before.accounts as object[])[0]).not.toHaveProperty('creditLine');

    bodyOf(await premium.api.ledger.backup.restore({ body: before as BackupInput }), 200);
    expect(await exported()).toEqual(before);
    const [restored] = bodyOf(await premium.api.ledger.wallets.list(), 200).items;
    expect(restored!.creditLine).toMatchObject({ limit: 10_000_000, drawn: 3_000_000, available: 7_000_000 });
    expect(await historyOf(app, premium, restored!.id)).toEqual([]);

    // A backup is held to the same rule: a credit line with an amortising method is refused.
    const broken = structuredClone(before) as BackupInput;
    broken.accounts![0]!.loanMethod = 'EQUAL_PAYMENT';
    const refused = problemOf(await premium.api.ledger.backup.restore({ body: broken }), 400, 'INVALID_BACKUP');
    expect(refused.errors?.map((issue) => issue.path)).toEqual(['body.accounts.0.loanMethod']);
  });
});
