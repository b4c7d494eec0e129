import type { Category, CategoryType } from '@nestegg/contract';
import { accountEntry, budget, budgetOnetime, category, ledgerChange, quickEntry, recurring } from '@nestegg/db';
import { and, asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

/** One row in every table that names a category, for `member`, naming `name` with `type` where it has one. */
async function usesOf(app: FastifyInstance, member: Caller, name: string, type: CategoryType) {
  const memberId = member.id;
  await app.db
    .insert(accountEntry)
    .values({ memberId, type, amount: 1000, entryDate: '2025-03-01', category: name, memo: `${type} ${name}` });
  await app.db
    .insert(recurring)
    .values({ memberId, name: `${type} ${name}`, type, amount: 1000, category: name, startDate: '2025-01-01' });
  await app.db.insert(quickEntry).values({ memberId, name: `${type} ${name}`, type, category: name });
}

async function budgetsOf(app: FastifyInstance, member: Caller, name: string, month = 3) {
  await app.db.insert(budget).values({ memberId: member.id, category: name, year: 2025, month, amount: 300_000 });
  await app.db.insert(budgetOnetime).values({
    memberId: member.id,
    name: `Trip ${name} ${month}`,
    amount: 500_000,
    startDate: '2025-03-01',
    endDate: '2025-03-31',
    category: name,
  });
}

/** Every category name in use, per table, sorted. */
async function namesInUse(app: FastifyInstance, member: Caller) {
  const memberId = member.id;
  const typed = async (table: typeof accountEntry | typeof recurring | typeof quickEntry) =>
    (
      await app.db
        .select({ type: table.type, category: table.category })
        .from(table)
        .where(eq(table.memberId, memberId))
    )
      .map((row) => `${row.type}:${row.category}`)
      .sort();
  const untyped = async (table: typeof budget | typeof budgetOnetime) =>
    (await app.db.select({ category: table.category }).from(table).where(eq(table.memberId, memberId)))
      .map((row) => row.category)
      .sort();
  return {
    entries: await typed(accountEntry),
    recurrings: await typed(recurring),
    quickEntries: await typed(quickEntry),
    budgets: await untyped(budget),
    onetimeBudgets: await untyped(budgetOnetime),
  };
}

const create = async (member: Caller, name: string, type: CategoryType = 'EXPENSE'): Promise<Category> =>
  bodyOf(await member.api.ledger.categories.create({ body: { name, type } }), 201);

const rename = (member: Caller, id: number, name: string) =>
  member.api.ledger.categories.update({ params: { id }, body: { name } });

describe('renaming a category renames its uses', () => {
  test('entries, recurrings and quick entries of its type, budgets and one-time budgets of an expense category', async ({
    app,
    free,
  }) => {
    const food = await create(free, 'Food');
    await create(free, 'Food', 'INCOME');
    await usesOf(app, free, 'Food', 'EXPENSE');
    await usesOf(app, free, 'Food', 'INCOME');
    await usesOf(app, free, 'Home', 'EXPENSE');
    await budgetsOf(app, free, 'Food');

    expect(bodyOf(await rename(free, food.id, 'Meals'), 200)).toEqual({ ...food, name: 'Meals' });

    const typed = ['EXPENSE:Home', 'EXPENSE:Meals', 'INCOME:Food'];
    expect(await namesInUse(app, free)).toEqual({
      entries: typed,
      recurrings: typed,
      quickEntries: typed,
      budgets: ['Meals'],
      onetimeBudgets: ['Meals'],
    });
  });

  test('an income category’s rename leaves budgets (they name expense categories) and other members alone', async ({
    app,
    free,
    other,
  }) => {
    const salary = await create(free, 'Salary', 'INCOME');
    await usesOf(app, free, 'Salary', 'INCOME');
    await budgetsOf(app, free, 'Salary');
    await usesOf(app, other, 'Salary', 'INCOME');
    const theirsBefore = await namesInUse(app, other);

    bodyOf(await rename(free, salary.id, 'Wages'), 200);
    const mine = await namesInUse(app, free);
    expect(mine.entries).toEqual(['INCOME:Wages']);
    expect(mine.budgets).toEqual(['Salary']);
    expect(mine.onetimeBudgets).toEqual(['Salary']);
    expect(await namesInUse(app, other)).toEqual(theirsBefore);
  });

  test('a sub-category’s rename renames its uses; its parent’s uses stay', async ({ app, free }) => {
    const food = await create(free, 'Food');
    const lunch = bodyOf(
      await free.api.ledger.categories.create({ body: { name: 'Lunch', type: 'EXPENSE', parentId: food.id } }),
      201,
    );
    await usesOf(app, free, 'Food', 'EXPENSE');
    await usesOf(app, free, 'Lunch', 'EXPENSE');
    bodyOf(await rename(free, lunch.id, 'Brunch'), 200);
    expect((await namesInUse(app, free)).entries).toEqual(['EXPENSE:Brunch', 'EXPENSE:Food']);
  });

  test('the renamed uses are logged for the delta sync', async ({ app, free }) => {
    const food = await create(free, 'Food');
    await usesOf(app, free, 'Food', 'EXPENSE');
    const [entry] = await app.db.select().from(accountEntry).where(eq(accountEntry.memberId, free.id));
    const seqOf = async () =>
      (
        await app.db
          .select({ seq: ledgerChange.seq })
          .from(ledgerChange)
          .where(
            and(
              eq(ledgerChange.memberId, free.id),
              eq(ledgerChange.entity, 'entry'),
              eq(ledgerChange.entityId, entry!.id),
            ),
          )
      )[0]?.seq ?? 0;
    const before = await seqOf();
    bodyOf(await rename(free, food.id, 'Meals'), 200);
    expect(await seqOf()).toBeGreaterThan(before);
  });

  test('a name the type already has → 409 and nothing is renamed', async ({ app, free }) => {
    const food = await create(free, 'Food');
    await create(free, 'Home');
    await usesOf(app, free, 'Food', 'EXPENSE');
    await budgetsOf(app, free, 'Food');
    const categoriesBefore = await app.db
      .select()
      .from(category)
      .where(eq(category.memberId, free.id))
      .orderBy(asc(category.id));
    const usesBefore = await namesInUse(app, free);

    problemOf(await rename(free, food.id, 'Home'), 409, 'DUPLICATE_CATEGORY_NAME');
    expect(await namesInUse(app, free)).toEqual(usesBefore);
    expect(
      await app.db.select().from(category).where(eq(category.memberId, free.id)).orderBy(asc(category.id)),
    ).toEqual(categoriesBefore);
  });

  test('a month that already has a budget of the new name → 409 and nothing is renamed', async ({ app, free }) => {
    const food = await create(free, 'Food');
    await usesOf(app, free, 'Food', 'EXPENSE');
    await budgetsOf(app, free, 'Food');
    await budgetsOf(app, free, 'Meals'); // left by a deleted "Meals" category, same month
    const usesBefore = await namesInUse(app, free);

    problemOf(await rename(free, food.id, 'Meals'), 409, 'DUPLICATE_CATEGORY_NAME');
    expect(await namesInUse(app, free)).toEqual(usesBefore);
    const [row] = await app.db.select().from(category).where(eq(category.id, food.id));
    expect(row?.name).toBe('Food');
  });
});

describe('renames racing writes that name the category', () => {
  test('no entry, recurring, quick entry or budget written during a rename keeps the old name', async ({
    app,
    premium,
  }) => {
    for (let round = 0; round < 4; round += 1) {
      const old = `Old ${round}`;
      const renamed = `New ${round}`;
      const food = await create(premium, old);
      const writes = Array.from({ length: 6 }, (_, index) => [
        premium.api.ledger.entries.create({
          body: { type: 'EXPENSE', amount: 1000 + index, date: '2025-03-02', category: old },
        }),
        premium.api.ledger.recurrings.create({
          body: {
            name: `r${round}-${index}`,
            type: 'EXPENSE',
            amount: 1,
            category: old,
            frequency: 'MONTHLY',
            startDate: '2025-01-01',
          },
        }),
        premium.api.ledger.quickEntries.create({
          body: { name: `q${round}-${index}`, type: 'EXPENSE', category: old },
        }),
        premium.api.ledger.budgets.create({ body: { category: old, year: 2030, month: (index % 12) + 1, amount: 1 } }),
      ]).flat();
      const [renaming, ...answers] = await Promise.all([
        premium.api.ledger.categories.update({ params: { id: food.id }, body: { name: renamed } }),
        ...writes,
      ]);
      expect(renaming.status).toBe(200);
      // Each write either landed before the rename (and was renamed) or after it (and was refused).
      for (const answer of answers) expect([201, 400]).toContain(answer.status);
      const names = await namesInUse(app, premium);
      expect(
        Object.values(names)
          .flat()
          .filter((name) => name?.endsWith(old)),
      ).toEqual([]);
    }
  });
});
