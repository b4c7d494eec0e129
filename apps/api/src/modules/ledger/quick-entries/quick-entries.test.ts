import { quickEntry } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';
import { seedCategory, seedWallet } from '../entries/ledger.fixture.js';

describe('quick-entry templates', () => {
  test('create with only a name: an EXPENSE template placed last; list by sort order', async ({ free }) => {
    const first = bodyOf(await free.api.ledger.quickEntries.create({ body: { name: 'Coffee' } }), 201);
    expect(first).toEqual({
      id: expect.any(Number),
      name: 'Coffee',
      type: 'EXPENSE',
      amount: null,
      category: null,
      accountId: null,
      memo: null,
      sortOrder: 0,
    });
    const second = bodyOf(await free.api.ledger.quickEntries.create({ body: { name: 'Lunch', amount: 9_000 } }), 201);
    expect(second.sortOrder).toBe(1);
    const pinned = bodyOf(await free.api.ledger.quickEntries.create({ body: { name: 'Rent', sortOrder: 0 } }), 201);
    const third = bodyOf(await free.api.ledger.quickEntries.create({ body: { name: 'Bus' } }), 201);
    expect(third.sortOrder).toBe(2);
    const { items } = bodyOf(await free.api.ledger.quickEntries.list(), 200);
    expect(items.map((item) => item.name)).toEqual(['Coffee', 'Rent', 'Lunch', 'Bus']);
    expect(items.map((item) => item.id)).toEqual([first.id, pinned.id, second.id, third.id]);
  });

  test('keeps every field; the category must be one of the member’s of the template’s type', async ({
    app,
    free,
    other,
  }) => {
    const food = await seedCategory(app, free.id, 'Food');
    await seedCategory(app, free.id, 'Cafe', 'EXPENSE', food);
    await seedCategory(app, free.id, 'Salary', 'INCOME');
    await seedCategory(app, other.id, 'Theirs');
    const wallet = await seedWallet(app, free.id, 'CASH');
    const created = bodyOf(
      await free.api.ledger.quickEntries.create({
        body: {
          name: 'Latte',
          type: 'EXPENSE',
          amount: 5_500,
          category: 'Cafe',
          accountId: wallet,
          memo: 'Blue Bottle',
        },
      }),
      201,
    );
    expect(created).toMatchObject({ amount: 5_500, category: 'Cafe', accountId: wallet, memo: 'Blue Bottle' });
    for (const category of ['Salary', 'Theirs', 'Nope']) {
      problemOf(await free.api.ledger.quickEntries.create({ body: { name: 'x', category } }), 400, 'UNKNOWN_CATEGORY');
    }
    bodyOf(
      await free.api.ledger.quickEntries.create({ body: { name: 'Pay', type: 'INCOME', category: 'Salary' } }),
      201,
    );
  });

  test('the wallet must be the member’s: another member’s → 404', async ({ app, free, other }) => {
    const theirs = await seedWallet(app, other.id, 'BANK');
    problemOf(await free.api.ledger.quickEntries.create({ body: { name: 'x', accountId: theirs } }), 404, 'NOT_FOUND');
    const mine = bodyOf(await free.api.ledger.quickEntries.create({ body: { name: 'x' } }), 201);
    problemOf(
      await free.api.ledger.quickEntries.update({ params: { id: mine.id }, body: { accountId: theirs } }),
      404,
      'NOT_FOUND',
    );
    expect(await app.db.select().from(quickEntry).where(eq(quickEntry.memberId, free.id))).toHaveLength(1);
  });

  test('update changes the fields sent, keeps the others, and a new type re-checks the category', async ({
    app,
    free,
  }) => {
    await seedCategory(app, free.id, 'Food');
    await seedCategory(app, free.id, 'Bonus', 'INCOME');
    const created = bodyOf(
      await free.api.ledger.quickEntries.create({
        body: { name: 'Lunch', amount: 9_000, category: 'Food', memo: 'm' },
      }),
      201,
    );
    const renamed = bodyOf(
      await free.api.ledger.quickEntries.update({ params: { id: created.id }, body: { name: 'Dinner', memo: null } }),
      200,
    );
    expect(renamed).toEqual({ ...created, name: 'Dinner', memo: null });
    problemOf(
      await free.api.ledger.quickEntries.update({ params: { id: created.id }, body: { type: 'INCOME' } }),
      400,
      'UNKNOWN_CATEGORY',
    );
    const income = bodyOf(
      await free.api.ledger.quickEntries.update({
        params: { id: created.id },
        body: { type: 'INCOME', category: 'Bonus' },
      }),
      200,
    );
    expect(income).toMatchObject({ type: 'INCOME', category: 'Bonus', amount: 9_000 });
    const cleared = bodyOf(
      await free.api.ledger.quickEntries.update({ params: { id: created.id }, body: { category: null, amount: null } }),
      200,
    );
    expect(cleared).toMatchObject({ category: null, amount: null });
    expect(bodyOf(await free.api.ledger.quickEntries.update({ params: { id: created.id }, body: {} }), 200)).toEqual(
      cleared,
    );
  });

  test('delete; another member neither changes nor deletes it (404)', async ({ free, other }) => {
    const created = bodyOf(await free.api.ledger.quickEntries.create({ body: { name: 'Mine' } }), 201);
    problemOf(
      await other.api.ledger.quickEntries.update({ params: { id: created.id }, body: { name: 'Stolen' } }),
      404,
      'NOT_FOUND',
    );
    problemOf(await other.api.ledger.quickEntries.delete({ params: { id: created.id } }), 404, 'NOT_FOUND');
    expect(bodyOf(await other.api.ledger.quickEntries.list(), 200).items).toEqual([]);
    expect((await free.api.ledger.quickEntries.delete({ params: { id: created.id } })).status).toBe(204);
    problemOf(await free.api.ledger.quickEntries.delete({ params: { id: created.id } }), 404, 'NOT_FOUND');
    expect(bodyOf(await free.api.ledger.quickEntries.list(), 200).items).toEqual([]);
  });

  test('bad input is 400', async ({ free }) => {
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(51) },
      { name: 'x', amount: -1 },
      { name: 'x', type: 'BOTH' },
    ]) {
      problemOf(await free.api.ledger.quickEntries.create({ body: body as never }), 400, 'VALIDATION_FAILED');
    }
  });
});
