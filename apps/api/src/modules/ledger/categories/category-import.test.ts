import type { Category, CategoryType } from '@nestegg/contract';
import { category, defaultCategory } from '@nestegg/db';
import { eq, isNotNull } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

/** The defaults every test imports: two levels, both types (replaces whatever a previous test left). */
async function seedDefaults(app: FastifyInstance): Promise<void> {
  await app.db.delete(defaultCategory).where(isNotNull(defaultCategory.parentId));
  await app.db.delete(defaultCategory);
  const top = async (name: string, type: CategoryType, sortOrder: number) =>
    (await app.db.insert(defaultCategory).values({ name, type, sortOrder }).returning())[0]!.id;
  const sub = (name: string, type: CategoryType, parentId: number, sortOrder: number) =>
    app.db.insert(defaultCategory).values({ name, type, parentId, sortOrder });
  // Inserted out of order: the copy follows sortOrder, not ids.
  const home = await top('Home', 'EXPENSE', 1);
  const food = await top('Food', 'EXPENSE', 0);
  await top('Transport', 'EXPENSE', 2);
  const salary = await top('Salary', 'INCOME', 0);
  await sub('Dinner', 'EXPENSE', food, 1);
  await sub('Lunch', 'EXPENSE', food, 0);
  await sub('Rent', 'EXPENSE', home, 0);
  await sub('Bonus', 'INCOME', salary, 0);
}

/** The member's categories as `[name, parent name, sortOrder]`, in list order. */
async function tree(member: Caller) {
  const items = bodyOf(await member.api.ledger.categories.list({ query: {} }), 200).items;
  const byId = new Map(items.map((item) => [item.id, item]));
  return items.map((item) => [item.name, byId.get(item.parentId ?? 0)?.name ?? null, item.sortOrder]);
}

const create = async (member: Caller, name: string, parentId?: number): Promise<Category> =>
  bodyOf(await member.api.ledger.categories.create({ body: { name, type: 'EXPENSE', parentId } }), 201);

describe('importing the default categories', () => {
  test('copies both levels in the defaults’ order; a second import skips everything', async ({ app, free }) => {
    await seedDefaults(app);
    expect(bodyOf(await free.api.ledger.categories.import(), 200)).toEqual({ imported: 8, skipped: 0 });
    expect(await tree(free)).toEqual([
      ['Salary', null, 0],
      ['Bonus', 'Salary', 0],
      ['Food', null, 0],
      ['Lunch', 'Food', 0],
      ['Dinner', 'Food', 1],
      ['Home', null, 1],
      ['Rent', 'Home', 0],
      ['Transport', null, 2],
    ]);
    expect(bodyOf(await free.api.ledger.categories.import(), 200)).toEqual({ imported: 0, skipped: 8 });
    expect(await tree(free)).toHaveLength(8);
  });

  test('skips names the member has (at either level), nests under the member’s same-name parent, never three deep', async ({
    app,
    free,
  }) => {
    await seedDefaults(app);
    const food = await create(free, 'Food');
    await create(free, 'Snacks', food.id);
    const eatingOut = await create(free, 'Eating out');
    await create(free, 'Dinner', eatingOut.id);
    const living = await create(free, 'Living');
    await create(free, 'Home', living.id); // the default top-level Home is a sub-category here

    expect(bodyOf(await free.api.ledger.categories.import(), 200)).toEqual({ imported: 4, skipped: 4 });
    expect(await tree(free)).toEqual([
      ['Salary', null, 0],
      ['Bonus', 'Salary', 0],
      ['Food', null, 0],
      ['Snacks', 'Food', 0],
      ['Lunch', 'Food', 1], // under the member's Food, after its own children
      ['Eating out', null, 1],
      ['Dinner', 'Eating out', 0], // the member's, kept where it is
      ['Living', null, 2],
      ['Home', 'Living', 0], // Rent is skipped: under this Home it would be a third level
      ['Transport', null, 3],
    ]);
  });

  test('parallel imports do not duplicate: every call answers 200, the copies add up once', async ({ app, free }) => {
    await seedDefaults(app);
    const answers = await Promise.all(Array.from({ length: 4 }, () => free.api.ledger.categories.import()));
    const results = answers.map((answer) => bodyOf(answer, 200));
    expect(results.reduce((sum, result) => sum + result.imported, 0)).toBe(8);
    expect(results.every((result) => result.imported + result.skipped === 8)).toBe(true);
    const rows = await app.db.select().from(category).where(eq(category.memberId, free.id));
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((row) => `${row.type}:${row.name}`)).size).toBe(8);
  });

  test('touches only the caller’s categories; anonymous callers get 401', async ({ app, free, other, anonymous }) => {
    await seedDefaults(app);
    await create(other, 'Food');
    bodyOf(await free.api.ledger.categories.import(), 200);
    expect(await tree(other)).toEqual([['Food', null, 0]]);
    problemOf(await anonymous.ledger.categories.import(), 401, 'UNAUTHENTICATED');
  });

  test('with no defaults there is nothing to import', async ({ app, free }) => {
    await seedDefaults(app);
    await app.db.delete(defaultCategory).where(isNotNull(defaultCategory.parentId));
    await app.db.delete(defaultCategory);
    expect(bodyOf(await free.api.ledger.categories.import(), 200)).toEqual({ imported: 0, skipped: 0 });
  });
});
