/** Ledgers for the backup tests: a rich one built through the routes, and large generated backups. */
import type { BackupInput } from '@nestegg/contract';
import { accountEntry } from '@nestegg/db';
import { addDays, dateIn, monthOf } from '@nestegg/domain';
import type { FastifyInstance } from 'fastify';
import { bodyOf } from '../../../test/client.js';
import type { Caller } from '../../../test/fixtures.js';

/** The ledger's current month (APP_TIMEZONE), where restore places budgets. */
export function currentMonth(app: FastifyInstance): { year: number; month: number } {
  const { year, month } = monthOf(dateIn(app.env.APP_TIMEZONE, new Date()));
  return { year, month };
}

/**
 * Every kind of record a backup carries, through the api: wallets of several kinds (opening balance, account
 * number, card, loan terms, manual value), two levels of categories of both types, tags, entries (tagged,
 * foreign, instalments, without a wallet, pending, a category that no longer exists), recurrings, budgets of
 * this month and another, a one-time budget, the expected income, quick entries.
 */
export async function buildRichLedger(app: FastifyInstance, owner: Caller): Promise<void> {
  const { ledger } = owner.api;
  const wallet = async (body: Parameters<typeof ledger.wallets.create>[0]['body']) =>
    bodyOf(await ledger.wallets.create({ body }), 201).id;
  const cash = await wallet({ name: '현금', type: 'CASH', openingBalance: 50_000 });
  const card = await wallet({ name: '신한카드', type: 'CARD', cardCompany: '신한', accountNumber: '1234-5678-9012' });
  await wallet({
    name: '주택담보대출',
    type: 'LOAN',
    loanAmount: 100_000_000,
    loanRate: '4.25',
    loanMethod: 'EQUAL_PAYMENT',
    loanMonths: 360,
    loanStart: '2024-01-15',
  });
  await wallet({ name: '연금', type: 'PENSION', manualValuation: true, currentValue: 12_345_678 });

  for (const name of ['여행', '회사', '가족']) bodyOf(await ledger.tags.create({ body: { name } }), 201);
  const category = async (name: string, type: 'INCOME' | 'EXPENSE', parentId?: number) =>
    bodyOf(await ledger.categories.create({ body: { name, type, ...(parentId ? { parentId } : {}) } }), 201).id;
  const food = await category('식비', 'EXPENSE');
  await category('카페', 'EXPENSE', food);
  await category('외식', 'EXPENSE', food);
  await category('교통', 'EXPENSE');
  const salary = await category('급여', 'INCOME');
  await category('상여', 'INCOME', salary);
  const gone = await category('사라질분류', 'EXPENSE');

  const entry = async (body: Parameters<typeof ledger.entries.create>[0]['body']) =>
    bodyOf(await ledger.entries.create({ body }), 201);
  await entry({
    type: 'INCOME',
    amount: 3_000_000,
    date: '2026-01-25',
    category: '급여',
    accountId: cash,
    tags: ['회사'],
  });
  await entry({
    type: 'EXPENSE',
    amount: 4_500,
    date: '2026-01-26',
    category: '카페',
    memo: '스타벅스',
    accountId: card,
  });
  await entry({
    type: 'EXPENSE',
    amount: 120_000,
    date: '2026-01-27',
    category: '외식',
    accountId: card,
    installmentMonths: 3,
    tags: ['가족', '여행'],
  });
  await entry({
    type: 'EXPENSE',
    amount: 16_543,
    date: '2026-01-28',
    memo: 'AMAZON.COM',
    accountId: card,
    currency: 'USD',
    originalAmount: '12.34',
    exchangeRate: '1340.6',
  });
  await entry({ type: 'EXPENSE', amount: 1_250, date: '2026-01-28', category: '교통' });
  await entry({ type: 'EXPENSE', amount: 9_900, date: '2026-01-29', category: '사라질분류', accountId: cash });
  bodyOf(await ledger.categories.delete({ params: { id: gone } }), 204);
  // Pending entries come from card notifications; written directly to keep this file about backups.
  await app.db.insert(accountEntry).values({
    memberId: owner.id,
    type: 'EXPENSE',
    amount: 33_000,
    entryDate: '2026-01-30',
    memo: '쿠팡',
    accountId: card,
    pending: true,
    notifKey: 'card:신한:1234:33000:2026-01-30T10:00',
  });

  bodyOf(
    await ledger.recurrings.create({
      body: {
        name: '월세',
        type: 'EXPENSE',
        amount: 500_000,
        frequency: 'MONTHLY',
        dayOfMonth: 25,
        startDate: '2026-01-25',
        accountId: cash,
        memo: '집주인',
      },
    }),
    201,
  );
  bodyOf(
    await ledger.recurrings.create({
      body: {
        name: '보험',
        type: 'EXPENSE',
        amount: 80_000,
        frequency: 'YEARLY',
        startDate: '2025-03-01',
        active: false,
      },
    }),
    201,
  );

  const month = currentMonth(app);
  const other = month.month === 1 ? { year: month.year - 1, month: 12 } : { ...month, month: month.month - 1 };
  bodyOf(await ledger.budgets.create({ body: { category: '식비', ...month, amount: 400_000 } }), 201);
  bodyOf(await ledger.budgets.create({ body: { category: '교통', ...month, amount: 60_000 } }), 201);
  bodyOf(await ledger.budgets.create({ body: { category: '식비', ...other, amount: 1 } }), 201);
  bodyOf(
    await ledger.budgets.createOnetime({
      body: { name: '제주 여행', amount: 700_000, startDate: '2026-02-01', endDate: '2026-02-05', category: '식비' },
    }),
    201,
  );
  bodyOf(await ledger.budgets.setIncome({ body: { ...month, amount: 3_200_000 } }), 200);

  bodyOf(
    await ledger.quickEntries.create({
      body: { name: '아메리카노', amount: 4_500, category: '카페', accountId: card },
    }),
    201,
  );
  bodyOf(await ledger.quickEntries.create({ body: { name: '버스', type: 'EXPENSE', amount: 1_250 } }), 201);
}

/** A backup of `count` entries over a few wallets, tags and categories (dates spread over the past years). */
export function generatedBackup(count: number, options: { memo?: (index: number) => string } = {}): BackupInput {
  return {
    accounts: [
      { name: '현금', type: 'CASH', openingBalance: 100_000 },
      { name: '카드', type: 'CARD', cardCompany: '현대' },
      { name: '통장', type: 'BANK', accountNumber: '110-123-456789' },
    ],
    tags: [{ name: '여행' }, { name: '가족' }],
    categories: [
      { name: '식비', type: 'EXPENSE' },
      { name: '카페', type: 'EXPENSE', parent: '식비' },
      { name: '급여', type: 'INCOME' },
    ],
    entries: Array.from({ length: count }, (_, index) => ({
      type: index % 10 === 0 ? ('INCOME' as const) : ('EXPENSE' as const),
      amount: 1_000 + (index % 977) * 10,
      date: addDays('2020-01-01', index % 2_000),
      memo: options.memo ? options.memo(index) : `가맹점 ${index % 500}`,
      category: index % 10 === 0 ? '급여' : index % 3 === 0 ? '카페' : '식비',
      account: ['현금', '카드', '통장'][index % 3]!,
      ...(index % 7 === 0 ? { tags: ['여행', '가족'] } : {}),
    })),
    quickEntries: [{ name: '커피', amount: 4_500, category: '카페' }],
  };
}
