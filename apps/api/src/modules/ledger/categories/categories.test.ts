import type { Category, CreateCategoryRequest } from '@nestegg/contract';
import { accountEntry, category } from '@nestegg/db';
import { asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { type ApiClient, bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

const create = async (api: ApiClient, body: CreateCategoryRequest): Promise<Category> =>
  bodyOf(await api.ledger.categories.create({ body }), 201);

const rowsOf = (app: FastifyInstance, member: Caller) =>
  app.db.select().from(category).where(eq(category.memberId, member.id)).orderBy(asc(category.id));

const names = (items: Category[]) => items.map((item) => item.name);

describe('create and list', () => {
  test('creates top-level and sub-categories, each last in its group; the list puts children after their parent', async ({
    free,
  }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    const home = await create(free.api, { name: 'Home', type: 'EXPENSE' });
    const salary = await create(free.api, { name: 'Salary', type: 'INCOME' });
    const lunch = await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    const rent = await create(free.api, { name: 'Rent', type: 'EXPENSE', parentId: home.id });
    const dinner = await create(free.api, { name: 'Dinner', type: 'EXPENSE', parentId: food.id });

    expect(food).toEqual({ id: food.id, name: 'Food', type: 'EXPENSE', parentId: null, sortOrder: 0 });
    expect([home.sortOrder, salary.sortOrder]).toEqual([1, 0]); // INCOME top level is its own group
    expect([lunch.sortOrder, dinner.sortOrder, rent.sortOrder]).toEqual([0, 1, 0]);
    expect(lunch.parentId).toBe(food.id);

    const all = bodyOf(await free.api.ledger.categories.list({ query: {} }), 200).items;
    expect(names(all)).toEqual(['Salary', 'Food', 'Lunch', 'Dinner', 'Home', 'Rent']);
    expect(all[0]).toEqual(salary);
    const expenses = bodyOf(await free.api.ledger.categories.list({ query: { type: 'EXPENSE' } }), 200).items;
    expect(names(expenses)).toEqual(['Food', 'Lunch', 'Dinner', 'Home', 'Rent']);
  });

  test('goes after the largest sort order of its group even with gaps', async ({ app, free }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    await app.db.update(category).set({ sortOrder: 7 }).where(eq(category.id, food.id));
    expect((await create(free.api, { name: 'Home', type: 'EXPENSE' })).sortOrder).toBe(8);
  });

  test('lists only the caller’s categories; anonymous callers get 401', async ({ free, other, anonymous }) => {
    await create(free.api, { name: 'Food', type: 'EXPENSE' });
    expect(bodyOf(await other.api.ledger.categories.list({ query: {} }), 200).items).toEqual([]);
    problemOf(await anonymous.ledger.categories.list({ query: {} }), 401, 'UNAUTHENTICATED');
  });

  test('a name is unique per type across both levels: 409 DUPLICATE_CATEGORY_NAME', async ({ app, free, other }) => {
    const food = await create(free.api, { name: ' Food ', type: 'EXPENSE' });
    expect(food.name).toBe('Food');
    const home = await create(free.api, { name: 'Home', type: 'EXPENSE' });
    await create(free.api, { name: 'Snacks', type: 'EXPENSE', parentId: food.id });

    for (const body of [
      { name: 'Food', type: 'EXPENSE' },
      { name: 'Food', type: 'EXPENSE', parentId: home.id },
      { name: 'Snacks', type: 'EXPENSE' },
      { name: 'Snacks', type: 'EXPENSE', parentId: home.id },
    ] as const) {
      problemOf(await free.api.ledger.categories.create({ body }), 409, 'DUPLICATE_CATEGORY_NAME');
    }
    // The other type, and another member, may use the name.
    await create(free.api, { name: 'Food', type: 'INCOME' });
    await create(other.api, { name: 'Food', type: 'EXPENSE' });
    expect(await rowsOf(app, free)).toHaveLength(4);
  });

  test('two creates of one name at once: one 201, one 409, one row', async ({ app, free }) => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => free.api.ledger.categories.create({ body: { name: 'Food', type: 'EXPENSE' } })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await rowsOf(app, free)).toHaveLength(1);
  });

  test('parallel creates in one group get distinct sort orders', async ({ free }) => {
    const created = await Promise.all(
      ['A', 'B', 'C', 'D', 'E'].map((name) => create(free.api, { name, type: 'EXPENSE' })),
    );
    expect(created.map((row) => row.sortOrder).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  test('a sub-category under a sub-category → 400 CATEGORY_TOO_DEEP; under the other type → 400 CATEGORY_TYPE_MISMATCH', async ({
    app,
    free,
  }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    const lunch = await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    const salary = await create(free.api, { name: 'Salary', type: 'INCOME' });
    problemOf(
      await free.api.ledger.categories.create({ body: { name: 'Sandwich', type: 'EXPENSE', parentId: lunch.id } }),
      400,
      'CATEGORY_TOO_DEEP',
    );
    problemOf(
      await free.api.ledger.categories.create({ body: { name: 'Bonus', type: 'EXPENSE', parentId: salary.id } }),
      400,
      'CATEGORY_TYPE_MISMATCH',
    );
    expect(await rowsOf(app, free)).toHaveLength(3);
  });

  test('an unknown parent, or another member’s, is 404', async ({ free, other }) => {
    const theirs = await create(other.api, { name: 'Food', type: 'EXPENSE' });
    for (const parentId of [theirs.id, 2_000_000_000]) {
      problemOf(
        await free.api.ledger.categories.create({ body: { name: 'Lunch', type: 'EXPENSE', parentId } }),
        404,
        'NOT_FOUND',
      );
    }
  });

  test('validates the body with 400', async ({ free }) => {
    for (const body of [
      {},
      { name: '', type: 'EXPENSE' },
      { name: '   ', type: 'EXPENSE' },
      { name: 'x'.repeat(31), type: 'EXPENSE' },
      { name: 'Food', type: 'SPENDING' },
      { name: 'Food', type: 'EXPENSE', parentId: 0 },
    ]) {
      problemOf(await free.api.ledger.categories.create({ body: body as never }), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('update', () => {
  test('moves a childless top-level category under another (last there) and back to the top (last there)', async ({
    free,
  }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    const snacks = await create(free.api, { name: 'Snacks', type: 'EXPENSE' });
    await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    const moved = bodyOf(
      await free.api.ledger.categories.update({ params: { id: snacks.id }, body: { parentId: food.id } }),
      200,
    );
    expect(moved).toEqual({ ...snacks, parentId: food.id, sortOrder: 1 });
    const back = bodyOf(
      await free.api.ledger.categories.update({ params: { id: snacks.id }, body: { parentId: null } }),
      200,
    );
    expect(back).toEqual({ ...snacks, parentId: null, sortOrder: 1 });
  });

  test('a top-level category with children cannot become a sub-category: 409 CATEGORY_HAS_CHILDREN', async ({
    app,
    free,
  }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    const home = await create(free.api, { name: 'Home', type: 'EXPENSE' });
    await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    const before = await rowsOf(app, free);
    problemOf(
      await free.api.ledger.categories.update({ params: { id: food.id }, body: { parentId: home.id } }),
      409,
      'CATEGORY_HAS_CHILDREN',
    );
    expect(await rowsOf(app, free)).toEqual(before);
  });

  test('refuses a move under a sub-category, under itself, under another type, or under someone else’s', async ({
    app,
    free,
    other,
  }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    const lunch = await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    const home = await create(free.api, { name: 'Home', type: 'EXPENSE' });
    const salary = await create(free.api, { name: 'Salary', type: 'INCOME' });
    const theirs = await create(other.api, { name: 'Theirs', type: 'EXPENSE' });
    const before = await rowsOf(app, free);
    const move = (parentId: number) =>
      free.api.ledger.categories.update({ params: { id: home.id }, body: { parentId } });

    problemOf(await move(lunch.id), 400, 'CATEGORY_TOO_DEEP');
    problemOf(await move(home.id), 400, 'INVALID_PARENT');
    problemOf(await move(salary.id), 400, 'CATEGORY_TYPE_MISMATCH');
    problemOf(await move(theirs.id), 404, 'NOT_FOUND');
    problemOf(
      await free.api.ledger.categories.update({ params: { id: theirs.id }, body: { name: 'Mine' } }),
      404,
      'NOT_FOUND',
    );
    expect(await rowsOf(app, free)).toEqual(before);
  });

  test('a sub-category keeps its parent’s type; a top-level type change carries its children, last in the new group', async ({
    free,
  }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    const lunch = await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    problemOf(
      await free.api.ledger.categories.update({ params: { id: lunch.id }, body: { type: 'INCOME' } }),
      400,
      'CATEGORY_TYPE_MISMATCH',
    );
    const salary = await create(free.api, { name: 'Salary', type: 'INCOME' });
    const switched = bodyOf(
      await free.api.ledger.categories.update({ params: { id: food.id }, body: { type: 'INCOME' } }),
      200,
    );
    expect(switched).toEqual({ ...food, type: 'INCOME', sortOrder: salary.sortOrder + 1 });
    const incomes = bodyOf(await free.api.ledger.categories.list({ query: { type: 'INCOME' } }), 200).items;
    expect(incomes.map((item) => [item.name, item.parentId])).toEqual([
      ['Salary', null],
      ['Food', null],
      ['Lunch', food.id],
    ]);
  });

  test('a type change is refused while the category or a child is used: 409 CATEGORY_IN_USE', async ({ app, free }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    const [entry] = await app.db
      .insert(accountEntry)
      .values({ memberId: free.id, type: 'EXPENSE', amount: 5000, entryDate: '2025-03-01', category: 'Lunch' })
      .returning();
    problemOf(
      await free.api.ledger.categories.update({ params: { id: food.id }, body: { type: 'INCOME' } }),
      409,
      'CATEGORY_IN_USE',
    );
    expect((await rowsOf(app, free)).map((row) => row.type)).toEqual(['EXPENSE', 'EXPENSE']);

    // An INCOME entry of the same name is not a use of the EXPENSE category.
    await app.db.update(accountEntry).set({ type: 'INCOME' }).where(eq(accountEntry.id, entry!.id));
    bodyOf(await free.api.ledger.categories.update({ params: { id: food.id }, body: { type: 'INCOME' } }), 200);
  });

  test('a retyped child whose name the new type has → 409 and nothing changes', async ({ app, free }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    await create(free.api, { name: 'Bonus', type: 'EXPENSE', parentId: food.id });
    await create(free.api, { name: 'Bonus', type: 'INCOME' });
    const before = await rowsOf(app, free);
    problemOf(
      await free.api.ledger.categories.update({ params: { id: food.id }, body: { type: 'INCOME' } }),
      409,
      'DUPLICATE_CATEGORY_NAME',
    );
    expect(await rowsOf(app, free)).toEqual(before);
  });

  test('an empty body changes nothing', async ({ free }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    expect(bodyOf(await free.api.ledger.categories.update({ params: { id: food.id }, body: {} }), 200)).toEqual(food);
  });
});

describe('delete', () => {
  test('deletes a sub-category, then its childless parent; 404 afterwards and for another member’s', async ({
    app,
    free,
    other,
  }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    const lunch = await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    const theirs = await create(other.api, { name: 'Theirs', type: 'EXPENSE' });
    problemOf(await free.api.ledger.categories.delete({ params: { id: theirs.id } }), 404, 'NOT_FOUND');
    expect((await free.api.ledger.categories.delete({ params: { id: lunch.id } })).status).toBe(204);
    expect((await free.api.ledger.categories.delete({ params: { id: food.id } })).status).toBe(204);
    expect(await rowsOf(app, free)).toEqual([]);
    problemOf(await free.api.ledger.categories.delete({ params: { id: food.id } }), 404, 'NOT_FOUND');
    expect(await rowsOf(app, other)).toHaveLength(1);
  });

  test('a top-level category with children → 409 CATEGORY_HAS_CHILDREN, nothing deleted', async ({ app, free }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    problemOf(await free.api.ledger.categories.delete({ params: { id: food.id } }), 409, 'CATEGORY_HAS_CHILDREN');
    expect(await rowsOf(app, free)).toHaveLength(2);
  });

  test('the uses keep the name (history is unchanged)', async ({ app, free }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    await app.db
      .insert(accountEntry)
      .values({ memberId: free.id, type: 'EXPENSE', amount: 5000, entryDate: '2025-03-01', category: 'Food' });
    expect((await free.api.ledger.categories.delete({ params: { id: food.id } })).status).toBe(204);
    const entries = await app.db.select().from(accountEntry).where(eq(accountEntry.memberId, free.id));
    expect(entries.map((entry) => entry.category)).toEqual(['Food']);
  });
});

describe('reorder', () => {
  test('sets 0..n-1 in the given order for one group of siblings', async ({ free }) => {
    const a = await create(free.api, { name: 'A', type: 'EXPENSE' });
    const b = await create(free.api, { name: 'B', type: 'EXPENSE' });
    const c = await create(free.api, { name: 'C', type: 'EXPENSE' });
    const b1 = await create(free.api, { name: 'B1', type: 'EXPENSE', parentId: b.id });
    const b2 = await create(free.api, { name: 'B2', type: 'EXPENSE', parentId: b.id });
    expect((await free.api.ledger.categories.reorder({ body: { ids: [c.id, a.id, b.id] } })).status).toBe(204);
    expect((await free.api.ledger.categories.reorder({ body: { ids: [b2.id, b1.id] } })).status).toBe(204);
    const list = bodyOf(await free.api.ledger.categories.list({ query: {} }), 200).items;
    expect(list.map((item) => [item.name, item.sortOrder])).toEqual([
      ['C', 0],
      ['A', 1],
      ['B', 2],
      ['B2', 0],
      ['B1', 1],
    ]);
  });

  test('ids that are not exactly one group of the caller’s siblings → 400 INVALID_REORDER, nothing changes', async ({
    app,
    free,
    other,
  }) => {
    const food = await create(free.api, { name: 'Food', type: 'EXPENSE' });
    const home = await create(free.api, { name: 'Home', type: 'EXPENSE' });
    const salary = await create(free.api, { name: 'Salary', type: 'INCOME' });
    const lunch = await create(free.api, { name: 'Lunch', type: 'EXPENSE', parentId: food.id });
    const theirs = await create(other.api, { name: 'Theirs', type: 'EXPENSE' });
    const before = await rowsOf(app, free);
    const theirsBefore = await rowsOf(app, other);

    for (const ids of [
      [home.id, food.id, theirs.id], // another member's id
      [home.id, food.id, 2_000_000_000], // an unknown id
      [theirs.id], // only someone else's
      [home.id], // incomplete: Food is missing
      [home.id, food.id, salary.id], // mixes types
      [home.id, food.id, lunch.id], // mixes levels
    ]) {
      problemOf(await free.api.ledger.categories.reorder({ body: { ids } }), 400, 'INVALID_REORDER');
    }
    for (const body of [{ ids: [] }, { ids: [food.id, food.id] }, {}]) {
      problemOf(await free.api.ledger.categories.reorder({ body: body as never }), 400, 'VALIDATION_FAILED');
    }
    expect(await rowsOf(app, free)).toEqual(before);
    expect(await rowsOf(app, other)).toEqual(theirsBefore);
  });
});
