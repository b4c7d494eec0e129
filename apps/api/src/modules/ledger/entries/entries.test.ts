import type { CreateEntryRequest } from '@nestegg/contract';
import { accountEntry, entryTag } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';
import { loadEntriesWithTags, toEntryResponse } from './entry.view.js';
import { seedCategory, seedTag, seedWallet } from './ledger.fixture.js';

const lunch = {
  type: 'EXPENSE',
  amount: 12_000,
  date: '2024-05-03',
  memo: 'Lunch',
} as const satisfies CreateEntryRequest;

describe('creating and reading entries', () => {
  test('records a confirmed entry with every field and reads it back', async ({ app, premium }) => {
    const card = await seedWallet(app, premium.id, 'CARD');
    await seedCategory(app, premium.id, 'Food');
    await seedTag(app, premium.id, 'travel', 2);
    await seedTag(app, premium.id, 'work', 1);
    const created = bodyOf(
      await premium.api.ledger.entries.create({
        body: {
          type: 'EXPENSE',
          amount: 13_490,
          date: '2024-05-03',
          memo: 'Airport shop',
          category: 'Food',
          accountId: card,
          tags: ['travel', 'work'],
          currency: 'USD',
          originalAmount: '9.9900',
          exchangeRate: '1350.25',
          installmentMonths: 3,
        },
      }),
      201,
    );
    expect(created).toMatchObject({
      type: 'EXPENSE',
      amount: 13_490,
      date: '2024-05-03',
      memo: 'Airport shop',
      category: 'Food',
      accountId: card,
      tags: ['work', 'travel'],
      currency: 'USD',
      originalAmount: '9.99',
      exchangeRate: '1350.25',
      installmentMonths: 3,
      pending: false,
      notifKey: null,
      recurringId: null,
    });
    expect(bodyOf(await premium.api.ledger.entries.get({ params: { id: created.id } }), 200)).toEqual(created);
  });

  test('needs only type, amount and date; an empty memo is no memo', async ({ free }) => {
    const created = bodyOf(
      await free.api.ledger.entries.create({ body: { type: 'INCOME', amount: 1, date: '2024-01-31', memo: '' } }),
      201,
    );
    expect(created).toMatchObject({ memo: null, category: null, accountId: null, tags: [], currency: null });
  });

  test('tags are premium: FREE sending tags → 403 and nothing saved; an empty list is fine; ADMIN passes', async ({
    app,
    free,
    admin,
  }) => {
    await seedTag(app, free.id, 'mine');
    problemOf(await free.api.ledger.entries.create({ body: { ...lunch, tags: ['mine'] } }), 403, 'PREMIUM_REQUIRED');
    expect(await app.db.select().from(accountEntry).where(eq(accountEntry.memberId, free.id))).toEqual([]);
    bodyOf(await free.api.ledger.entries.create({ body: { ...lunch, tags: [] } }), 201);

    await seedTag(app, admin.id, 'boss');
    expect(bodyOf(await admin.api.ledger.entries.create({ body: { ...lunch, tags: ['boss'] } }), 201).tags).toEqual([
      'boss',
    ]);
  });

  test('the category must be one of the member’s categories of the entry’s type, at either level', async ({
    app,
    premium,
    other,
  }) => {
    const food = await seedCategory(app, premium.id, 'Food');
    await seedCategory(app, premium.id, 'Cafe', 'EXPENSE', food);
    await seedCategory(app, premium.id, 'Salary', 'INCOME');
    await seedCategory(app, other.id, 'Theirs');
    expect(
      bodyOf(await premium.api.ledger.entries.create({ body: { ...lunch, category: 'Cafe' } }), 201).category,
    ).toBe('Cafe');
    for (const category of ['Salary', 'Theirs', 'Nope']) {
      problemOf(await premium.api.ledger.entries.create({ body: { ...lunch, category } }), 400, 'UNKNOWN_CATEGORY');
    }
    expect(
      bodyOf(await premium.api.ledger.entries.create({ body: { ...lunch, type: 'INCOME', category: 'Salary' } }), 201)
        .category,
    ).toBe('Salary');
  });

  test('tags are the member’s own tags by name: an unknown or foreign name → 400 UNKNOWN_TAG', async ({
    app,
    premium,
    other,
  }) => {
    await seedTag(app, premium.id, 'mine');
    await seedTag(app, other.id, 'theirs');
    const problem = problemOf(
      await premium.api.ledger.entries.create({ body: { ...lunch, tags: ['mine', 'theirs', 'nope'] } }),
      400,
      'UNKNOWN_TAG',
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(['body.tags.1', 'body.tags.2']);
    expect(await app.db.select().from(accountEntry).where(eq(accountEntry.memberId, premium.id))).toEqual([]);
  });

  test('the wallet must be the member’s: another member’s or a missing one → 404', async ({ app, free, other }) => {
    const theirs = await seedWallet(app, other.id, 'BANK');
    problemOf(await free.api.ledger.entries.create({ body: { ...lunch, accountId: theirs } }), 404, 'NOT_FOUND');
    problemOf(await free.api.ledger.entries.create({ body: { ...lunch, accountId: 2_000_000_000 } }), 404, 'NOT_FOUND');
    expect(await app.db.select().from(accountEntry).where(eq(accountEntry.memberId, free.id))).toEqual([]);
  });

  test('instalments: 2..24 months, for expenses on a CARD wallet only', async ({ app, free }) => {
    const card = await seedWallet(app, free.id, 'CARD');
    const bank = await seedWallet(app, free.id, 'BANK');
    const checkCard = await seedWallet(app, free.id, 'CHECK_CARD');
    bodyOf(await free.api.ledger.entries.create({ body: { ...lunch, accountId: card, installmentMonths: 24 } }), 201);
    const refused = [
      { ...lunch, accountId: card, installmentMonths: 25 },
      { ...lunch, accountId: card, installmentMonths: 1 },
      { ...lunch, type: 'INCOME', accountId: card, installmentMonths: 3 },
      { ...lunch, accountId: bank, installmentMonths: 3 },
      { ...lunch, accountId: checkCard, installmentMonths: 3 },
      { ...lunch, installmentMonths: 3 },
    ] as const;
    for (const body of refused) {
      problemOf(await free.api.ledger.entries.create({ body }), 400, 'VALIDATION_FAILED');
    }
    expect(await app.db.select().from(accountEntry).where(eq(accountEntry.memberId, free.id))).toHaveLength(1);
  });

  test('a foreign amount carries currency, originalAmount and exchangeRate together', async ({ free }) => {
    const foreign = { currency: 'JPY', originalAmount: '1200', exchangeRate: '9.0512' };
    bodyOf(await free.api.ledger.entries.create({ body: { ...lunch, ...foreign } }), 201);
    for (const partial of [
      { currency: 'JPY' },
      { currency: 'JPY', originalAmount: '1200' },
      { originalAmount: '1200', exchangeRate: '9' },
      { exchangeRate: '9' },
    ]) {
      problemOf(await free.api.ledger.entries.create({ body: { ...lunch, ...partial } }), 400, 'VALIDATION_FAILED');
    }
  });

  test('bad input is 400, never 500', async ({ free }) => {
    for (const body of [
      { ...lunch, amount: 0 },
      { ...lunch, amount: 1.5 },
      { ...lunch, date: '2024-02-30' },
      { ...lunch, memo: 'x'.repeat(201) },
      { ...lunch, tags: ['a', 'a'] },
      { ...lunch, currency: 'usd', originalAmount: '1', exchangeRate: '1' },
    ]) {
      problemOf(await free.api.ledger.entries.create({ body: body as never }), 400, 'VALIDATION_FAILED');
    }
  });

  test('another member reads, changes and deletes nothing of it (404)', async ({ free, other }) => {
    const created = bodyOf(await free.api.ledger.entries.create({ body: lunch }), 201);
    problemOf(await other.api.ledger.entries.get({ params: { id: created.id } }), 404, 'NOT_FOUND');
    problemOf(
      await other.api.ledger.entries.update({ params: { id: created.id }, body: { amount: 1 } }),
      404,
      'NOT_FOUND',
    );
    problemOf(await other.api.ledger.entries.delete({ params: { id: created.id } }), 404, 'NOT_FOUND');
    expect(bodyOf(await free.api.ledger.entries.get({ params: { id: created.id } }), 200)).toEqual(created);
  });
});

describe('updating entries', () => {
  test('changes the fields sent and keeps the others; null clears', async ({ app, free }) => {
    await seedCategory(app, free.id, 'Food');
    const wallet = await seedWallet(app, free.id, 'BANK');
    const created = bodyOf(
      await free.api.ledger.entries.create({ body: { ...lunch, category: 'Food', accountId: wallet } }),
      201,
    );
    const updated = bodyOf(
      await free.api.ledger.entries.update({ params: { id: created.id }, body: { amount: 15_000, memo: null } }),
      200,
    );
    expect(updated).toMatchObject({ ...created, amount: 15_000, memo: null, updatedAt: expect.any(String) });
    const cleared = bodyOf(
      await free.api.ledger.entries.update({ params: { id: created.id }, body: { category: null, accountId: null } }),
      200,
    );
    expect(cleared).toMatchObject({ amount: 15_000, date: lunch.date, category: null, accountId: null });
    expect(bodyOf(await free.api.ledger.entries.update({ params: { id: created.id }, body: {} }), 200)).toEqual(
      cleared,
    );
  });

  test('a new type re-checks the stored category', async ({ app, free }) => {
    await seedCategory(app, free.id, 'Food');
    await seedCategory(app, free.id, 'Bonus', 'INCOME');
    const created = bodyOf(await free.api.ledger.entries.create({ body: { ...lunch, category: 'Food' } }), 201);
    problemOf(
      await free.api.ledger.entries.update({ params: { id: created.id }, body: { type: 'INCOME' } }),
      400,
      'UNKNOWN_CATEGORY',
    );
    problemOf(
      await free.api.ledger.entries.update({ params: { id: created.id }, body: { category: 'Bonus' } }),
      400,
      'UNKNOWN_CATEGORY',
    );
    const moved = bodyOf(
      await free.api.ledger.entries.update({ params: { id: created.id }, body: { type: 'INCOME', category: 'Bonus' } }),
      200,
    );
    expect(moved).toMatchObject({ type: 'INCOME', category: 'Bonus' });
  });

  test('a partial update that would break a CHECK of the stored row is 400, and changes nothing', async ({
    app,
    free,
  }) => {
    const card = await seedWallet(app, free.id, 'CARD');
    const instalment = bodyOf(
      await free.api.ledger.entries.create({ body: { ...lunch, accountId: card, installmentMonths: 6 } }),
      201,
    );
    const toIncome = problemOf(
      await free.api.ledger.entries.update({ params: { id: instalment.id }, body: { type: 'INCOME' } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(toIncome.errors).toEqual([{ path: 'body.installmentMonths', message: expect.any(String) }]);

    const local = bodyOf(await free.api.ledger.entries.create({ body: lunch }), 201);
    const halfForeign = problemOf(
      await free.api.ledger.entries.update({ params: { id: local.id }, body: { originalAmount: '10.5' } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(halfForeign.errors?.[0]?.path).toBe('body.currency');

    expect(bodyOf(await free.api.ledger.entries.get({ params: { id: instalment.id } }), 200)).toEqual(instalment);
    expect(bodyOf(await free.api.ledger.entries.get({ params: { id: local.id } }), 200)).toEqual(local);
  });

  test('a foreign entry can change one part of its triple, or become local with currency null', async ({ free }) => {
    const foreign = bodyOf(
      await free.api.ledger.entries.create({
        body: { ...lunch, currency: 'EUR', originalAmount: '8', exchangeRate: '1450' },
      }),
      201,
    );
    const changed = bodyOf(
      await free.api.ledger.entries.update({
        params: { id: foreign.id },
        body: { originalAmount: '8.25', amount: 11_963 },
      }),
      200,
    );
    expect(changed).toMatchObject({ currency: 'EUR', originalAmount: '8.25', exchangeRate: '1450', amount: 11_963 });
    problemOf(
      await free.api.ledger.entries.update({ params: { id: foreign.id }, body: { currency: null } }),
      400,
      'VALIDATION_FAILED',
    );
    const local = bodyOf(
      await free.api.ledger.entries.update({
        params: { id: foreign.id },
        body: { currency: null, originalAmount: null, exchangeRate: null },
      }),
      200,
    );
    expect(local).toMatchObject({ currency: null, originalAmount: null, exchangeRate: null });
  });

  test('instalments follow the wallet: moving to a non-card wallet or clearing it is refused', async ({
    app,
    free,
  }) => {
    const card = await seedWallet(app, free.id, 'CARD');
    const bank = await seedWallet(app, free.id, 'BANK');
    const created = bodyOf(await free.api.ledger.entries.create({ body: { ...lunch, accountId: bank } }), 201);
    problemOf(
      await free.api.ledger.entries.update({ params: { id: created.id }, body: { installmentMonths: 3 } }),
      400,
      'VALIDATION_FAILED',
    );
    const onCard = bodyOf(
      await free.api.ledger.entries.update({
        params: { id: created.id },
        body: { accountId: card, installmentMonths: 3 },
      }),
      200,
    );
    expect(onCard).toMatchObject({ accountId: card, installmentMonths: 3 });
    for (const body of [{ accountId: bank }, { accountId: null }]) {
      problemOf(await free.api.ledger.entries.update({ params: { id: created.id }, body }), 400, 'VALIDATION_FAILED');
    }
    const lumpSum = bodyOf(
      await free.api.ledger.entries.update({
        params: { id: created.id },
        body: { accountId: bank, installmentMonths: null },
      }),
      200,
    );
    expect(lumpSum).toMatchObject({ accountId: bank, installmentMonths: null });
  });

  test('another member’s wallet → 404 and the entry stays', async ({ app, free, other }) => {
    const theirs = await seedWallet(app, other.id, 'CARD');
    const created = bodyOf(await free.api.ledger.entries.create({ body: lunch }), 201);
    problemOf(
      await free.api.ledger.entries.update({ params: { id: created.id }, body: { accountId: theirs } }),
      404,
      'NOT_FOUND',
    );
    expect(bodyOf(await free.api.ledger.entries.get({ params: { id: created.id } }), 200)).toEqual(created);
  });

  test('sent tags replace the entry’s tags; an empty list clears them; FREE may only clear', async ({
    app,
    premium,
    free,
  }) => {
    for (const [name, order] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      await seedTag(app, premium.id, name, order);
    const created = bodyOf(await premium.api.ledger.entries.create({ body: { ...lunch, tags: ['b', 'a'] } }), 201);
    expect(created.tags).toEqual(['a', 'b']);
    const replaced = bodyOf(
      await premium.api.ledger.entries.update({ params: { id: created.id }, body: { tags: ['c', 'b'] } }),
      200,
    );
    expect(replaced.tags).toEqual(['b', 'c']);
    expect(
      bodyOf(await premium.api.ledger.entries.update({ params: { id: created.id }, body: { amount: 5 } }), 200).tags,
    ).toEqual(['b', 'c']);
    expect(
      bodyOf(await premium.api.ledger.entries.update({ params: { id: created.id }, body: { tags: [] } }), 200).tags,
    ).toEqual([]);
    expect(await app.db.select().from(entryTag).where(eq(entryTag.entryId, created.id))).toEqual([]);

    const freeEntry = bodyOf(await free.api.ledger.entries.create({ body: lunch }), 201);
    await seedTag(app, free.id, 'old');
    problemOf(
      await free.api.ledger.entries.update({ params: { id: freeEntry.id }, body: { tags: ['old'] } }),
      403,
      'PREMIUM_REQUIRED',
    );
    bodyOf(await free.api.ledger.entries.update({ params: { id: freeEntry.id }, body: { tags: [] } }), 200);
  });

  test('delete removes the entry and its tags; a second delete is 404', async ({ app, premium }) => {
    await seedTag(app, premium.id, 'gone');
    const created = bodyOf(await premium.api.ledger.entries.create({ body: { ...lunch, tags: ['gone'] } }), 201);
    expect((await premium.api.ledger.entries.delete({ params: { id: created.id } })).status).toBe(204);
    problemOf(await premium.api.ledger.entries.get({ params: { id: created.id } }), 404, 'NOT_FOUND');
    problemOf(await premium.api.ledger.entries.delete({ params: { id: created.id } }), 404, 'NOT_FOUND');
    expect(await app.db.select().from(entryTag).where(eq(entryTag.entryId, created.id))).toEqual([]);
  });
});

describe('entry view (shared with the delta-sync feed)', () => {
  test('loads a member’s entries by id with their tags in one statement, as the routes render them', async ({
    app,
    premium,
    other,
  }) => {
    await seedTag(app, premium.id, 'b', 2);
    await seedTag(app, premium.id, 'a', 1);
    const first = bodyOf(await premium.api.ledger.entries.create({ body: { ...lunch, tags: ['b', 'a'] } }), 201);
    const second = bodyOf(await premium.api.ledger.entries.create({ body: { ...lunch, date: '2024-05-04' } }), 201);
    const foreign = bodyOf(await other.api.ledger.entries.create({ body: lunch }), 201);
    const rows = await loadEntriesWithTags(app.db, premium.id, [first.id, second.id, foreign.id, 2_000_000_000]);
    expect(rows.map((row) => toEntryResponse(row, row.tags))).toEqual([second, first]);
    expect(await loadEntriesWithTags(app.db, premium.id, [])).toEqual([]);
  });
});
