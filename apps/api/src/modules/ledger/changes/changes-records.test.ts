import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { type ApiClient, bodyOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';

// Account numbers are encrypted at rest: the feed must hand them out decrypted, as the wallet routes do.
const test = apiTest({ ACCOUNT_NUMBER_KEYS: `k1:${randomBytes(32).toString('base64')}`, ACCOUNT_NUMBER_KEY_ID: 'k1' });

async function sync(api: ApiClient, since?: string) {
  return bodyOf(await api.ledger.changes.list({ query: { since } }), 200);
}

/** One record of every synced kind, each made through its own route; returns what the routes answered. */
async function ledgerOf(api: ApiClient) {
  const { ledger } = api;
  const wallet = bodyOf(
    await ledger.wallets.create({ body: { name: '월급통장', type: 'BANK', accountNumber: '110-123-456789' } }),
    201,
  );
  const food = bodyOf(await ledger.categories.create({ body: { name: '식비', type: 'EXPENSE' } }), 201);
  const cafe = bodyOf(
    await ledger.categories.create({ body: { name: '카페', type: 'EXPENSE', parentId: food.id } }),
    201,
  );
  const tag = bodyOf(await ledger.tags.create({ body: { name: '여행' } }), 201);
  const entry = bodyOf(
    await ledger.entries.create({
      body: {
        type: 'EXPENSE',
        amount: 1370,
        date: '2026-11-20',
        memo: 'Blue Bottle',
        category: '카페',
        accountId: wallet.id,
        tags: ['여행'],
        currency: 'USD',
        originalAmount: '1.0000',
        exchangeRate: '1370.0007310000',
      },
    }),
    201,
  );
  const recurring = bodyOf(
    await ledger.recurrings.create({
      body: { name: '월세', type: 'EXPENSE', amount: 500_000, frequency: 'MONTHLY', startDate: '2026-01-25' },
    }),
    201,
  );
  const quickEntry = bodyOf(
    await ledger.quickEntries.create({ body: { name: '커피', type: 'EXPENSE', category: '카페' } }),
    201,
  );
  const budget = bodyOf(
    await ledger.budgets.create({ body: { category: '식비', year: 2026, month: 11, amount: 300_000 } }),
    201,
  );
  const onetime = bodyOf(
    await ledger.budgets.createOnetime({
      body: { name: '제주 여행', amount: 800_000, startDate: '2026-12-01', endDate: '2026-12-05' },
    }),
    201,
  );
  const income = bodyOf(await ledger.budgets.setIncome({ body: { year: 2026, month: 11, amount: 3_000_000 } }), 200);
  return { wallet, food, cafe, tag, entry, recurring, quickEntry, budget, onetime, income };
}

describe('delta sync records', () => {
  test('carry every kind exactly as its own route shows it: decrypted numbers, exact decimals, tags', async ({
    premium,
  }) => {
    const made = await ledgerOf(premium.api);
    const { ledger } = premium.api;
    const { changed } = await sync(premium.api);

    expect(changed.wallets).toEqual([bodyOf(await ledger.wallets.get({ params: { id: made.wallet.id } }), 200)]);
    expect(changed.wallets[0]?.accountNumber).toBe('110-123-456789');
    expect(changed.entries).toEqual([bodyOf(await ledger.entries.get({ params: { id: made.entry.id } }), 200)]);
    expect(changed.entries[0]).toMatchObject({ tags: ['여행'], exchangeRate: made.entry.exchangeRate });
    expect(changed.categories).toEqual(bodyOf(await ledger.categories.list({ query: {} }), 200).items);
    expect(changed.tags).toEqual([made.tag]);
    expect(changed.recurrings).toEqual(bodyOf(await ledger.recurrings.list(), 200).items);
    expect(changed.quickEntries).toEqual([made.quickEntry]);
    const { spent: _spent, ...budgetRecord } = made.budget;
    expect(changed.budgets).toEqual([budgetRecord]);
    const { spent: _onetimeSpent, ...onetimeRecord } = made.onetime;
    expect(changed.onetimeBudgets).toEqual([onetimeRecord]);
    expect(changed.budgetIncomes).toEqual([expect.objectContaining({ year: 2026, month: 11, amount: 3_000_000 })]);
  });

  test('tombstone every kind its route deletes', async ({ premium }) => {
    const made = await ledgerOf(premium.api);
    const { ledger } = premium.api;
    const { cursor } = await sync(premium.api);
    const id = (value: { id: number }) => ({ params: { id: value.id } });
    await ledger.entries.delete(id(made.entry));
    await ledger.quickEntries.delete(id(made.quickEntry));
    await ledger.recurrings.delete(id(made.recurring));
    await ledger.budgets.delete(id(made.budget));
    await ledger.budgets.deleteOnetime(id(made.onetime));
    await ledger.tags.delete(id(made.tag));
    await ledger.categories.delete(id(made.cafe));
    await ledger.wallets.delete(id(made.wallet));

    const after = await sync(premium.api, cursor);
    expect(after.deleted).toEqual([
      { entity: 'entry', id: made.entry.id },
      { entity: 'quick_entry', id: made.quickEntry.id },
      { entity: 'recurring', id: made.recurring.id },
      { entity: 'budget', id: made.budget.id },
      { entity: 'budget_onetime', id: made.onetime.id },
      { entity: 'tag', id: made.tag.id },
      { entity: 'category', id: made.cafe.id },
      { entity: 'wallet', id: made.wallet.id },
    ]);
    expect(Object.values(after.changed).flat()).toEqual([]);
  });
});
