import { type BackupInput, BackupObjectSchema, contract, listRoutes } from '@nestegg/contract';
import { accountEntry, investmentHolding, investmentTrade, walletLoanHistory, walletValueHistory } from '@nestegg/db';
import { addDays, dateIn } from '@nestegg/domain';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { buildRichLedger, currentMonth, generatedBackup } from './ledgers.fixture.js';

/** The raw export: the streamed text, its headers, and the text parsed. */
async function exportOf(app: FastifyInstance, caller: Caller) {
  const response = await app.inject({ method: 'GET', url: '/api/account/backup', headers: caller.headers });
  expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
  return { response, backup: JSON.parse(response.body) as Record<string, unknown> & { exportedAt: string } };
}

/** An export without its timestamp: what must survive a restore unchanged. */
async function contentOf(app: FastifyInstance, caller: Caller) {
  const { exportedAt: _at, ...rest } = (await exportOf(app, caller)).backup;
  return rest;
}

function restore(app: FastifyInstance, caller: Caller, body: unknown) {
  return app.inject({
    method: 'POST',
    url: '/api/account/restore',
    headers: { ...caller.headers, 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('backup and restore: premium only', () => {
  test('FREE members get 403 PREMIUM_REQUIRED; admins pass', async ({ app, free, admin }) => {
    for (const { key, route } of listRoutes(contract.ledger.backup)) {
      const response = await app.inject({
        method: route.method as 'GET',
        url: route.path,
        headers: { ...free.headers, 'content-type': 'application/json' },
        ...(route.method === 'POST' ? { payload: JSON.stringify(generatedBackup(1)) } : {}),
      });
      expect([key, response.statusCode, response.json().code]).toEqual([key, 403, 'PREMIUM_REQUIRED']);
    }
    const restored = await admin.api.ledger.backup.restore({ body: generatedBackup(2) });
    expect(bodyOf(restored, 200).entries).toBe(2);
  });
});

describe('export', () => {
  test('is the body restore takes: the contract schema reads it back without change', async ({ app, premium }) => {
    await buildRichLedger(app, premium);
    const { response, backup } = await exportOf(app, premium);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="nestegg-backup-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    // No field the schema does not know (it would be stripped) and none missing (a default would be added).
    expect(BackupObjectSchema.parse(backup)).toEqual(backup);
    const typed = BackupObjectSchema.parse(backup);
    expect(typed.accounts.map((a) => a.name)).toEqual(['현금', '신한카드', '주택담보대출', '연금']);
    expect(typed.accounts[1]).toMatchObject({ accountNumber: '1234-5678-9012', cardCompany: '신한' });
    expect(typed.accounts[0]).toMatchObject({ openingBalance: 50_000, balance: 50_000 + 3_000_000 - 9_900 });
    expect(typed.categories.filter((c) => c.parent).map((c) => [c.name, c.parent])).toEqual([
      ['상여', '급여'],
      ['카페', '식비'],
      ['외식', '식비'],
    ]);
    expect(typed.entries).toHaveLength(7);
    expect(typed.entries[2]).toEqual({
      type: 'EXPENSE',
      amount: 120_000,
      date: '2026-01-27',
      category: '외식',
      account: '신한카드',
      tags: ['여행', '가족'],
      installmentMonths: 3,
    });
    expect(typed.entries[3]).toMatchObject({ currency: 'USD', originalAmount: '12.34', exchangeRate: '1340.6' });
    expect(typed.entries[6]).toMatchObject({ pending: true, notifKey: 'card:신한:1234:33000:2026-01-30T10:00' });
    expect(typed.budgets).toEqual([
      { category: '교통', amount: 60_000 },
      { category: '식비', amount: 400_000 },
    ]);
    expect(typed.expectedIncome).toBe(3_200_000);
    expect(typed.recurrings.map((r) => [r.name, r.account ?? null, r.active])).toEqual([
      ['월세', '현금', true],
      ['보험', null, false],
    ]);
  });

  test('an empty ledger exports empty lists', async ({ app, premium }) => {
    const { backup } = await exportOf(app, premium);
    expect(BackupObjectSchema.parse(backup)).toMatchObject({ accounts: [], entries: [], expectedIncome: null });
  });
});

describe('restore', () => {
  test('an export restored and exported again is equal (into the same member and into another)', async ({
    app,
    premium,
  }) => {
    await buildRichLedger(app, premium);
    const before = await contentOf(app, premium);
    const { backup } = await exportOf(app, premium);

    const counts = bodyOf(await premium.api.ledger.backup.restore({ body: backup as BackupInput }), 200);
    expect(counts).toEqual({
      accounts: 4,
      tags: 3,
      categories: 6,
      entries: 7,
      recurrings: 2,
      budgets: 2,
      onetimeBudgets: 1,
      expectedIncome: true,
      quickEntries: 2,
    });
    expect(await contentOf(app, premium)).toEqual(before);
  });

  test('restoring into another member gives the same export; balances and sync follow', async ({
    app,
    premium,
    admin,
  }) => {
    await buildRichLedger(app, premium);
    const { backup } = await exportOf(app, premium);
    bodyOf(await admin.api.ledger.backup.restore({ body: backup as BackupInput }), 200);
    const { exportedAt: _a, ...mine } = backup;
    expect(await contentOf(app, admin)).toEqual(mine);

    const wallets = bodyOf(await admin.api.ledger.wallets.list(), 200).items;
    expect(wallets.find((w) => w.name === '신한카드')?.balance).toBe(-(4_500 + 120_000 + 16_543));
  });

  test('a device syncing from before the restore learns the old records were deleted', async ({ app, premium }) => {
    await buildRichLedger(app, premium);
    const first = bodyOf(await premium.api.ledger.changes.list({ query: {} }), 200);
    const oldIds = first.changed.entries.map((e) => e.id);
    bodyOf(await premium.api.ledger.backup.restore({ body: generatedBackup(3) }), 200);
    const next = bodyOf(await premium.api.ledger.changes.list({ query: { since: first.cursor } }), 200);
    expect(
      next.deleted
        .filter((d) => d.entity === 'entry')
        .map((d) => d.id)
        .sort(),
    ).toEqual(oldIds.sort());
    expect(next.changed.entries).toHaveLength(3);
    expect(next.changed.wallets.map((w) => w.name).sort()).toEqual(['카드', '통장', '현금']);
  });

  test('replaces everything: old records, other months’ budgets and investments are gone', async ({ app, premium }) => {
    await buildRichLedger(app, premium);
    const holding = bodyOf(
      await premium.api.ledger.investments.createHolding({ body: { name: '삼성전자', stockCode: '005930' } }),
      201,
    );
    bodyOf(
      await premium.api.ledger.investments.createTrade({
        body: { holdingId: holding.id, side: 'BUY', quantity: '10', price: '70000', tradedAt: '2026-01-02' },
      }),
      201,
    );

    bodyOf(await premium.api.ledger.backup.restore({ body: generatedBackup(5) }), 200);

    const { backup } = await exportOf(app, premium);
    const typed = BackupObjectSchema.parse(backup);
    expect(typed.accounts.map((a) => a.name)).toEqual(['현금', '카드', '통장']);
    expect(typed.entries).toHaveLength(5);
    expect(typed).toMatchObject({ budgets: [], onetimeBudgets: [], expectedIncome: null, recurrings: [] });
    expect(await app.db.select().from(investmentHolding).where(eq(investmentHolding.memberId, premium.id))).toEqual([]);
    expect(await app.db.select().from(investmentTrade).where(eq(investmentTrade.memberId, premium.id))).toEqual([]);
    const month = currentMonth(app);
    const other = month.month === 1 ? { year: month.year - 1, month: 12 } : { ...month, month: month.month - 1 };
    expect(bodyOf(await premium.api.ledger.budgets.list({ query: other }), 200).items).toEqual([]);
  });

  test('budgets and the expected income land in the current month', async ({ app, premium }) => {
    await premium.api.ledger.categories.create({ body: { name: '식비', type: 'EXPENSE' } });
    bodyOf(
      await premium.api.ledger.backup.restore({
        body: {
          categories: [{ name: '식비', type: 'EXPENSE' }],
          budgets: [
            { category: '식비', amount: 300_000 },
            { category: '없는분류', amount: 5 },
          ],
          expectedIncome: 2_500_000,
        },
      }),
      200,
    );
    const month = currentMonth(app);
    const listed = bodyOf(await premium.api.ledger.budgets.list({ query: month }), 200);
    expect(listed.items.map((b) => [b.category, b.year, b.month, b.amount])).toEqual([
      ['식비', month.year, month.month, 300_000],
      ['없는분류', month.year, month.month, 5],
    ]);
    expect(listed.expectedIncome).toBe(2_500_000);
  });

  test('is not limited by the FREE tier: 5 cards and 4 recurrings restore', async ({ premium }) => {
    const cards = Array.from({ length: 5 }, (_, i) => ({ name: `카드 ${i}`, type: 'CARD' as const }));
    const recurrings = Array.from({ length: 4 }, (_, i) => ({
      name: `정기 ${i}`,
      type: 'EXPENSE' as const,
      amount: 1_000,
      frequency: 'MONTHLY' as const,
      startDate: '2026-01-01',
      account: `카드 ${i}`,
    }));
    const counts = bodyOf(await premium.api.ledger.backup.restore({ body: { accounts: cards, recurrings } }), 200);
    expect(counts).toMatchObject({ accounts: 5, recurrings: 4 });
    // The limits the FREE tier would apply (3 per wallet type, 2 recurrings) stay for a FREE member's own creates.
    expect(bodyOf(await premium.api.ledger.wallets.list(), 200).items).toHaveLength(5);
    expect(bodyOf(await premium.api.ledger.recurrings.list(), 200).items).toHaveLength(4);
  });

  test('a recurring keeps where its posting stood; one from elsewhere is settled up to yesterday', async ({
    app,
    premium,
  }) => {
    const base = { type: 'EXPENSE' as const, amount: 1_000, frequency: 'MONTHLY' as const, startDate: '2025-01-10' };
    bodyOf(
      await premium.api.ledger.backup.restore({
        body: {
          recurrings: [
            { ...base, name: 'kept', lastRunOn: '2025-06-10' },
            { ...base, name: 'never posted', lastRunOn: null },
            { ...base, name: 'from elsewhere' },
          ],
        },
      }),
      200,
    );
    const listed = bodyOf(await premium.api.ledger.recurrings.list(), 200).items;
    const yesterday = addDays(dateIn(app.env.APP_TIMEZONE, new Date()), -1);
    expect(listed.map((r) => [r.name, r.dayOfMonth, r.lastRunOn])).toEqual([
      ['kept', 10, '2025-06-10'],
      ['never posted', 10, null],
      ['from elsewhere', 10, yesterday],
    ]);
  });

  test('a wallet without an opening balance ends at its backed-up balance', async ({ premium }) => {
    bodyOf(
      await premium.api.ledger.backup.restore({
        body: {
          accounts: [{ name: '통장', type: 'BANK', balance: 10_000 }],
          entries: [
            { type: 'INCOME', amount: 3_000, date: '2026-01-01', account: '통장' },
            { type: 'EXPENSE', amount: 500, date: '2026-01-02', account: '통장' },
            { type: 'EXPENSE', amount: 99, date: '2026-01-02', account: '통장', pending: true },
          ],
        },
      }),
      200,
    );
    const [wallet] = bodyOf(await premium.api.ledger.wallets.list(), 200).items;
    expect(wallet).toMatchObject({ openingBalance: 7_500, balance: 10_000 });
  });

  test('restored manual values and loan terms are recorded for today, as creating the wallets does', async ({
    app,
    premium,
  }) => {
    const loan = {
      loanAmount: 1_200_000,
      loanRate: '4.25',
      loanMethod: 'EQUAL_PRINCIPAL',
      loanMonths: 360,
      loanStart: '2024-01-15',
    } as const;
    bodyOf(
      await premium.api.ledger.backup.restore({
        body: {
          accounts: [
            { name: '대출', type: 'LOAN', ...loan },
            { name: '빈 대출', type: 'LOAN' },
            { name: '연금', type: 'PENSION', manualValuation: true, currentValue: 5_000 },
          ],
        },
      }),
      200,
    );
    const today = dateIn(app.env.APP_TIMEZONE, new Date());
    const wallets = bodyOf(await premium.api.ledger.wallets.list(), 200).items;
    const idOf = (name: string) => wallets.find((wallet) => wallet.name === name)!.id;
    expect(
      await app.db
        .select({
          accountId: walletLoanHistory.accountId,
          validFrom: walletLoanHistory.validFrom,
          loanAmount: walletLoanHistory.loanAmount,
          loanRate: walletLoanHistory.loanRate,
          loanMethod: walletLoanHistory.loanMethod,
          loanMonths: walletLoanHistory.loanMonths,
          loanStart: walletLoanHistory.loanStart,
        })
        .from(walletLoanHistory)
        .where(eq(walletLoanHistory.memberId, premium.id)),
    ).toEqual([{ accountId: idOf('대출'), validFrom: today, ...loan, loanRate: '4.2500' }]);
    expect(
      await app.db
        .select({
          accountId: walletValueHistory.accountId,
          day: walletValueHistory.day,
          value: walletValueHistory.value,
        })
        .from(walletValueHistory)
        .where(eq(walletValueHistory.memberId, premium.id)),
    ).toEqual([{ accountId: idOf('연금'), day: today, value: 5_000 }]);
    // The loan started in 2024: a year ago it was owed already, and less of it since.
    const points = bodyOf(await premium.api.ledger.wallets.netWorthTrend({ query: { months: 12 } }), 200).points;
    expect(points[0]!.liabilities).toBeGreaterThan(points.at(-1)!.liabilities);
    expect(points.at(-1)!.liabilities).toBeGreaterThan(0);
  });
});

describe('restore refuses', () => {
  test('an empty backup (400 EMPTY_BACKUP), leaving the ledger as it was', async ({ app, premium }) => {
    await buildRichLedger(app, premium);
    const before = await contentOf(app, premium);
    for (const body of [{}, { accounts: [], entries: [], expectedIncome: null }]) {
      problemOf(await premium.api.ledger.backup.restore({ body }), 400, 'EMPTY_BACKUP');
    }
    expect(await contentOf(app, premium)).toEqual(before);
  });

  test('a backup naming what it does not hold, or holding a name twice (400 INVALID_BACKUP)', async ({
    app,
    premium,
  }) => {
    await buildRichLedger(app, premium);
    const before = await contentOf(app, premium);
    const valid = generatedBackup(10);
    const cases: [BackupInput, string][] = [
      [
        {
          ...valid,
          entries: [...valid.entries!, { type: 'EXPENSE', amount: 1, date: '2026-01-01', account: '없는지갑' }],
        },
        'body.entries.10.account',
      ],
      [
        { ...valid, entries: [{ type: 'EXPENSE', amount: 1, date: '2026-01-01', tags: ['없는태그'] }] },
        'body.entries.0.tags.0',
      ],
      [{ ...valid, accounts: [...valid.accounts!, { name: '현금', type: 'BANK' }] }, 'body.accounts.3.name'],
      [{ ...valid, categories: [{ name: '카페', type: 'EXPENSE', parent: '식비' }] }, 'body.categories.0.parent'],
      [
        {
          categories: [
            { name: 'a', type: 'EXPENSE' },
            { name: 'b', type: 'EXPENSE', parent: 'a' },
            { name: 'c', type: 'EXPENSE', parent: 'b' },
          ],
        },
        'body.categories.2.parent',
      ],
      [
        {
          categories: [
            { name: 'a', type: 'INCOME' },
            { name: 'b', type: 'EXPENSE', parent: 'a' },
          ],
        },
        'body.categories.1.parent',
      ],
      [{ quickEntries: [{ name: 'q', account: '없는지갑' }] }, 'body.quickEntries.0.account'],
      [
        {
          budgets: [
            { category: '식비', amount: 1 },
            { category: '식비', amount: 2 },
          ],
        },
        'body.budgets.1.category',
      ],
      [{ accounts: [{ name: 'x', type: 'CASH', loanAmount: 5 }] }, 'body.accounts.0.loanAmount'],
    ];
    for (const [body, path] of cases) {
      const problem = problemOf(await premium.api.ledger.backup.restore({ body }), 400, 'INVALID_BACKUP');
      expect(problem.errors?.map((e) => e.path)).toContain(path);
    }
    expect(await contentOf(app, premium)).toEqual(before);
  });

  test('what the contract refuses (400 VALIDATION_FAILED), broken JSON (400 MALFORMED_JSON) and text (415)', async ({
    app,
    premium,
  }) => {
    const invalid = await restore(app, premium, {
      entries: [{ type: 'EXPENSE', amount: 1, date: '2026-01-01', currency: 'USD' }],
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(invalid.json().errors.map((e: { path: string }) => e.path)).toContain('body.entries.0.currency');
    expect((await restore(app, premium, '{"entries": [')).json()).toMatchObject({ code: 'MALFORMED_JSON' });
    const text = await app.inject({
      method: 'POST',
      url: '/api/account/restore',
      headers: { ...premium.headers, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect([text.statusCode, text.json().code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });
});

/** Waits until `count` statements of this test's database wait for a lock (restores queued behind a writer). */
async function lockWaitSeen(app: FastifyInstance, count = 1): Promise<void> {
  for (let tries = 0; tries < 500; tries += 1) {
    const [row] = await app.db.execute<{ n: number }>(sql`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    if ((row?.n ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`fewer than ${count} statements waited for a lock`);
}

/** Holds the member's category lock (as a rename would) until the returned function is called. */
async function holdCategoryLock(app: FastifyInstance, memberId: number): Promise<() => Promise<void>> {
  let release!: () => void;
  let held!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const taken = new Promise<void>((resolve) => {
    held = resolve;
  });
  const holder = app.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('nestegg.category'), ${memberId}::int)`);
    held();
    await released;
  });
  await taken;
  return async () => {
    release();
    await holder;
  };
}

/** A database rule the backup cannot know of, refusing one record deep in it (the test database only). */
async function refuseRecord(app: FastifyInstance, table: 'account_entry' | 'quick_entry', column: string) {
  await app.db.execute(
    sql.raw(`create or replace function refuse_boom() returns trigger language plpgsql as $$
      begin if new.${column} = 'boom' then raise exception 'boom' using errcode = 'check_violation'; end if;
      return new; end $$`),
  );
  await app.db.execute(
    sql.raw(`create trigger refuse_boom before insert on ${table} for each row execute function refuse_boom()`),
  );
  return () => app.db.execute(sql.raw(`drop trigger refuse_boom on ${table}`));
}

describe('restore is one transaction', () => {
  test('a failure deep in the entries, or in the last kind, rolls all of it back', async ({ app, premium }) => {
    await buildRichLedger(app, premium);
    const before = await contentOf(app, premium);

    // Two batches of entries are written before the 11,001st is refused.
    const dropEntryRule = await refuseRecord(app, 'account_entry', 'memo');
    try {
      const backup = generatedBackup(12_000, { memo: (index) => (index === 11_000 ? 'boom' : `m ${index}`) });
      const problem = problemOf(await premium.api.ledger.backup.restore({ body: backup }), 400, 'INVALID_BACKUP');
      expect(problem.errors?.map((e) => e.path)).toEqual(['body.entries']);
    } finally {
      await dropEntryRule();
    }
    expect(await contentOf(app, premium)).toEqual(before);

    // Quick entries come last: everything else was written when this one is refused.
    const dropTemplateRule = await refuseRecord(app, 'quick_entry', 'name');
    try {
      const backup = { ...generatedBackup(100), quickEntries: [{ name: 'fine' }, { name: 'boom' }] };
      const problem = problemOf(await premium.api.ledger.backup.restore({ body: backup }), 400, 'INVALID_BACKUP');
      expect(problem.errors?.map((e) => e.path)).toEqual(['body.quickEntries']);
    } finally {
      await dropTemplateRule();
    }
    expect(await contentOf(app, premium)).toEqual(before);
  });

  test('an entry written while a restore waits is replaced, not left behind without its wallet', async ({
    app,
    premium,
  }) => {
    bodyOf(await premium.api.ledger.backup.restore({ body: generatedBackup(3) }), 200);
    const wallet = bodyOf(await premium.api.ledger.wallets.list(), 200).items.find((w) => w.name === '현금')!;
    let release!: () => void;
    let written!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const racing = new Promise<void>((resolve) => {
      written = resolve;
    });
    // Another request's transaction: it wrote an entry on the wallet and has not committed yet.
    const writer = app.db.transaction(async (tx) => {
      await tx.insert(accountEntry).values({
        memberId: premium.id,
        accountId: wallet.id,
        type: 'EXPENSE',
        amount: 1,
        entryDate: '2026-01-01',
        memo: 'race',
      });
      written();
      await held;
    });
    await racing;
    const restoring = premium.api.ledger.backup.restore({ body: generatedBackup(20) });
    await lockWaitSeen(app);
    release();
    await writer;
    bodyOf(await restoring, 200);
    const after = BackupObjectSchema.parse((await exportOf(app, premium)).backup);
    expect(after.entries.filter((e) => e.memo === 'race')).toEqual([]);
    expect(after.entries).toHaveLength(20);
  });

  test('a restore waits for the member’s other writes; a third one at once is told to come back', async ({
    app,
    premium,
  }) => {
    const release = await holdCategoryLock(app, premium.id);
    const first = premium.api.ledger.backup.restore({ body: generatedBackup(10, { memo: () => 'first' }) });
    const second = premium.api.ledger.backup.restore({ body: generatedBackup(20, { memo: () => 'second' }) });
    await lockWaitSeen(app, 2);
    const third = await premium.api.ledger.backup.restore({ body: generatedBackup(5) });
    problemOf(third, 503, 'OVERLOADED');
    await release();
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    bodyOf(await premium.api.ledger.backup.restore({ body: generatedBackup(5) }), 200);
  });

  test('concurrent restores of one member end with one backup whole, never a mix', async ({ app, premium }) => {
    const first = generatedBackup(3_000, { memo: () => 'first' });
    const second = {
      ...generatedBackup(2_000, { memo: () => 'second' }),
      tags: [{ name: '여행' }, { name: '가족' }, { name: '둘째' }],
    };
    const answers = await Promise.all([
      premium.api.ledger.backup.restore({ body: first }),
      premium.api.ledger.backup.restore({ body: second }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const after = BackupObjectSchema.parse((await exportOf(app, premium)).backup);
    const memos = new Set(after.entries.map((e) => e.memo));
    expect(memos.size).toBe(1);
    expect(after.entries).toHaveLength(memos.has('first') ? 3_000 : 2_000);
    expect(after.tags).toHaveLength(memos.has('first') ? 2 : 3);
  });
});
