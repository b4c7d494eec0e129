import { defaultCategory } from '@nestegg/db';
import { asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { createMemberWithSession, type TestMember } from '../../test/app.js';
import { apiTest } from '../../test/fixtures.js';

const test = apiTest();
const base = '/api/admin/default-categories';

let admin: TestMember;
let free: TestMember;
let premium: TestMember;

test.beforeAll(async ({ app }) => {
  admin = await createMemberWithSession(app, { role: 'ADMIN' });
  free = await createMemberWithSession(app, { plan: 'FREE' });
  premium = await createMemberWithSession(app, { plan: 'PREMIUM' });
});

// Each test starts from an empty table (sub-categories first: a parent with children cannot go).
test.beforeEach(async ({ app }) => {
  await app.db.execute('delete from default_category where parent_id is not null');
  await app.db.delete(defaultCategory);
});

type Category = { id: number; name: string; type: 'INCOME' | 'EXPENSE'; parentId: number | null; sortOrder: number };

const request = (
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
  caller: TestMember | null = admin,
) => app.inject({ method, url, ...(payload ? { payload } : {}), headers: caller?.headers ?? {} });

async function create(
  app: FastifyInstance,
  name: string,
  type: 'INCOME' | 'EXPENSE' = 'EXPENSE',
  parentId?: number | null,
): Promise<Category> {
  const response = await request(app, 'POST', base, { name, type, ...(parentId !== undefined ? { parentId } : {}) });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const rows = (app: FastifyInstance) => app.db.select().from(defaultCategory).orderBy(asc(defaultCategory.id));
const row = async (app: FastifyInstance, id: number) =>
  (await app.db.select().from(defaultCategory).where(eq(defaultCategory.id, id)))[0];

describe('guards', () => {
  const routes = (id: number) => [
    { method: 'GET' as const, url: base, ok: 200 },
    { method: 'PUT' as const, url: `${base}/reorder`, payload: { ids: [id] }, ok: 204 },
    { method: 'POST' as const, url: base, payload: { name: 'Guarded', type: 'EXPENSE' }, ok: 201 },
    { method: 'PUT' as const, url: `${base}/${id}`, payload: { name: 'Renamed' }, ok: 200 },
    { method: 'DELETE' as const, url: `${base}/${id}`, ok: 204 },
  ];

  test('anonymous → 401, FREE and PREMIUM members → 403, admins → 2xx; nothing changes for the refused', async ({
    app,
  }) => {
    const food = await create(app, 'Food');
    for (const [caller, status, code] of [
      [null, 401, 'UNAUTHENTICATED'],
      [free, 403, 'ADMIN_REQUIRED'],
      [premium, 403, 'ADMIN_REQUIRED'],
    ] as const) {
      for (const route of routes(food.id)) {
        const response = await request(app, route.method, route.url, route.payload, caller);
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(status);
        expect(response.json().code).toBe(code);
      }
    }
    expect((await rows(app)).map((r) => r.name)).toEqual(['Food']);

    const statuses: number[] = [];
    for (const route of routes(food.id))
      statuses.push((await request(app, route.method, route.url, route.payload)).statusCode);
    expect(statuses).toEqual(routes(food.id).map((route) => route.ok));
  });
});

describe('create and list', () => {
  test('creates top-level and sub-categories, each last among its siblings', async ({ app }) => {
    const food = await create(app, 'Food');
    const home = await create(app, 'Home');
    const salary = await create(app, 'Salary', 'INCOME');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    const dinner = await create(app, 'Dinner', 'EXPENSE', food.id);
    const rent = await create(app, 'Rent', 'EXPENSE', home.id);

    expect(food).toEqual({ id: food.id, name: 'Food', type: 'EXPENSE', parentId: null, sortOrder: 0 });
    expect(home.sortOrder).toBe(1);
    expect(salary.sortOrder).toBe(0); // INCOME top level is its own sibling group
    expect([lunch.sortOrder, dinner.sortOrder, rent.sortOrder]).toEqual([0, 1, 0]);
    expect(lunch.parentId).toBe(food.id);

    const list = await request(app, 'GET', base);
    expect(list.statusCode).toBe(200);
    expect(list.json().items.map((c: Category) => c.name)).toEqual([
      'Salary',
      'Food',
      'Home',
      'Lunch',
      'Dinner',
      'Rent',
    ]);
    expect(list.json().items[0]).toEqual(salary);
  });

  test('goes after the largest sort order even when there are gaps', async ({ app }) => {
    const food = await create(app, 'Food');
    await app.db.update(defaultCategory).set({ sortOrder: 7 }).where(eq(defaultCategory.id, food.id));
    expect((await create(app, 'Home')).sortOrder).toBe(8);
  });

  test('trims the name and refuses a name its type already has, at either level, with 409', async ({ app }) => {
    const food = await create(app, '  Food ');
    expect(food.name).toBe('Food');
    const duplicate = await request(app, 'POST', base, { name: 'Food', type: 'EXPENSE' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().code).toBe('DUPLICATE_CATEGORY_NAME');

    // Entries refer to categories by name: one name per type, whatever the parent.
    await create(app, 'Food', 'INCOME');
    const underParent = await request(app, 'POST', base, { name: 'Food', type: 'EXPENSE', parentId: food.id });
    expect(underParent.statusCode).toBe(409);
    const home = await create(app, 'Home');
    await create(app, 'Snacks', 'EXPENSE', food.id);
    const elsewhere = await request(app, 'POST', base, { name: 'Snacks', type: 'EXPENSE', parentId: home.id });
    expect(elsewhere.statusCode).toBe(409);
  });

  test('two creates of one name at once: one 201, the others 409 DUPLICATE_CATEGORY_NAME', async ({ app }) => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => request(app, 'POST', base, { name: 'Food', type: 'EXPENSE' })),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 409, 409, 409]);
    expect(answers.filter((answer) => answer.statusCode === 409).map((answer) => answer.json().code)).toEqual([
      'DUPLICATE_CATEGORY_NAME',
      'DUPLICATE_CATEGORY_NAME',
      'DUPLICATE_CATEGORY_NAME',
    ]);
    expect(await rows(app)).toHaveLength(1);
  });

  test('refuses a sub-category under a sub-category with 400 CATEGORY_TOO_DEEP', async ({ app }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    const response = await request(app, 'POST', base, { name: 'Sandwich', type: 'EXPENSE', parentId: lunch.id });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('CATEGORY_TOO_DEEP');
    expect(await rows(app)).toHaveLength(2);
  });

  test('refuses a parent of the other type (400) and an unknown parent (404)', async ({ app }) => {
    const salary = await create(app, 'Salary', 'INCOME');
    const mismatch = await request(app, 'POST', base, { name: 'Bonus', type: 'EXPENSE', parentId: salary.id });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().code).toBe('CATEGORY_TYPE_MISMATCH');
    const missing = await request(app, 'POST', base, { name: 'Bonus', type: 'INCOME', parentId: 2_000_000_000 });
    expect(missing.statusCode).toBe(404);
  });

  test('validates the body with 400', async ({ app }) => {
    for (const payload of [
      {},
      { name: '', type: 'EXPENSE' },
      { name: '   ', type: 'EXPENSE' },
      { name: 'x'.repeat(31), type: 'EXPENSE' },
      { name: 'Food', type: 'SPENDING' },
      { name: 'Food', type: 'EXPENSE', parentId: 0 },
      { name: 'Food', type: 'EXPENSE', parentId: 'abc' },
    ]) {
      const response = await request(app, 'POST', base, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('update', () => {
  test('renames, and refuses a name taken by a sibling with 409', async ({ app }) => {
    const food = await create(app, 'Food');
    await create(app, 'Home');
    const renamed = await request(app, 'PUT', `${base}/${food.id}`, { name: 'Meals' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toEqual({ ...food, name: 'Meals' });
    const taken = await request(app, 'PUT', `${base}/${food.id}`, { name: 'Home' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('DUPLICATE_CATEGORY_NAME');
    expect((await row(app, food.id))?.name).toBe('Meals');
  });

  test('moves a childless top-level category under another one (last there) and back to the top', async ({ app }) => {
    const food = await create(app, 'Food');
    const snacks = await create(app, 'Snacks');
    await create(app, 'Lunch', 'EXPENSE', food.id);

    const moved = await request(app, 'PUT', `${base}/${snacks.id}`, { parentId: food.id });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ id: snacks.id, parentId: food.id, sortOrder: 1 });

    const back = await request(app, 'PUT', `${base}/${snacks.id}`, { parentId: null });
    expect(back.statusCode).toBe(200);
    expect(back.json()).toMatchObject({ parentId: null, sortOrder: 1 });
  });

  test('refuses to turn a top-level category that has children into a sub-category (409 CATEGORY_HAS_CHILDREN)', async ({
    app,
  }) => {
    const food = await create(app, 'Food');
    const home = await create(app, 'Home');
    await create(app, 'Lunch', 'EXPENSE', food.id);
    const response = await request(app, 'PUT', `${base}/${food.id}`, { parentId: home.id });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('CATEGORY_HAS_CHILDREN');
    expect((await row(app, food.id))?.parentId).toBeNull();
  });

  test('refuses a move under a sub-category or under itself (400), an unknown parent or category (404)', async ({
    app,
  }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    const home = await create(app, 'Home');

    const tooDeep = await request(app, 'PUT', `${base}/${home.id}`, { parentId: lunch.id });
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json().code).toBe('CATEGORY_TOO_DEEP');

    const itself = await request(app, 'PUT', `${base}/${home.id}`, { parentId: home.id });
    expect(itself.statusCode).toBe(400);

    expect((await request(app, 'PUT', `${base}/${home.id}`, { parentId: 2_000_000_000 })).statusCode).toBe(404);
    expect((await request(app, 'PUT', `${base}/2000000000`, { name: 'Ghost' })).statusCode).toBe(404);
    expect((await request(app, 'PUT', `${base}/${home.id}`, { name: '' })).statusCode).toBe(400);
  });

  test('keeps a sub-category’s type equal to its parent’s; a top-level type change carries the children', async ({
    app,
  }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    const mismatch = await request(app, 'PUT', `${base}/${lunch.id}`, { type: 'INCOME' });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().code).toBe('CATEGORY_TYPE_MISMATCH');

    const salary = await create(app, 'Salary', 'INCOME');
    const switched = await request(app, 'PUT', `${base}/${food.id}`, { type: 'INCOME' });
    expect(switched.statusCode).toBe(200);
    expect(switched.json()).toMatchObject({ type: 'INCOME', parentId: null, sortOrder: salary.sortOrder + 1 });
    expect((await row(app, lunch.id))?.type).toBe('INCOME');
  });

  test('an empty body changes nothing', async ({ app }) => {
    const food = await create(app, 'Food');
    const response = await request(app, 'PUT', `${base}/${food.id}`, {});
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(food);
  });
});

describe('delete', () => {
  test('deletes a sub-category and a childless top-level one; 404 afterwards', async ({ app }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    expect((await request(app, 'DELETE', `${base}/${lunch.id}`)).statusCode).toBe(204);
    expect((await request(app, 'DELETE', `${base}/${food.id}`)).statusCode).toBe(204);
    expect(await rows(app)).toEqual([]);
    const again = await request(app, 'DELETE', `${base}/${food.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('NOT_FOUND');
  });

  test('refuses a top-level category with children with 409 CATEGORY_HAS_CHILDREN', async ({ app }) => {
    const food = await create(app, 'Food');
    await create(app, 'Lunch', 'EXPENSE', food.id);
    const response = await request(app, 'DELETE', `${base}/${food.id}`);
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('CATEGORY_HAS_CHILDREN');
    expect(await rows(app)).toHaveLength(2);
  });
});

describe('reorder', () => {
  test('sets 0..n-1 in the given order for one group of siblings', async ({ app }) => {
    const a = await create(app, 'A');
    const b = await create(app, 'B');
    const c = await create(app, 'C');
    const response = await request(app, 'PUT', `${base}/reorder`, { ids: [c.id, a.id, b.id] });
    expect(response.statusCode).toBe(204);
    const byId = new Map((await rows(app)).map((r) => [r.id, r.sortOrder]));
    expect([byId.get(c.id), byId.get(a.id), byId.get(b.id)]).toEqual([0, 1, 2]);
    const list = (await request(app, 'GET', base)).json();
    expect(list.items.map((item: Category) => item.name)).toEqual(['C', 'A', 'B']);
  });

  test('reorders sub-categories of one parent', async ({ app }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    const dinner = await create(app, 'Dinner', 'EXPENSE', food.id);
    expect((await request(app, 'PUT', `${base}/reorder`, { ids: [dinner.id, lunch.id] })).statusCode).toBe(204);
    expect((await row(app, dinner.id))?.sortOrder).toBe(0);
    expect((await row(app, lunch.id))?.sortOrder).toBe(1);
  });

  test('refuses ids that are not exactly one group of siblings with 400, unknown ids with 404', async ({ app }) => {
    const food = await create(app, 'Food');
    const home = await create(app, 'Home');
    const salary = await create(app, 'Salary', 'INCOME');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);

    for (const ids of [
      [food.id], // incomplete: Home is missing
      [food.id, home.id, salary.id], // mixes types
      [food.id, home.id, lunch.id], // mixes levels
    ]) {
      const response = await request(app, 'PUT', `${base}/reorder`, { ids });
      expect(response.statusCode, JSON.stringify(ids)).toBe(400);
      expect(response.json().code).toBe('INVALID_REORDER');
    }
    for (const payload of [{ ids: [] }, { ids: [food.id, food.id] }, {}]) {
      const response = await request(app, 'PUT', `${base}/reorder`, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await request(app, 'PUT', `${base}/reorder`, { ids: [food.id, 2_000_000_000] })).statusCode).toBe(404);

    expect((await row(app, food.id))?.sortOrder).toBe(0);
    expect((await row(app, home.id))?.sortOrder).toBe(1);
  });
});
