import type { DefaultCategory } from '@nestegg/contract';
import { defaultCategory } from '@nestegg/db';
import { asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { createMemberWithSession, type TestMember } from '../../../test/app.js';
import { type ApiClient, bodyOf, contractClient, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';

const test = apiTest();

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

/** The typed admin-area client of a member (their token, the admin by default), or of an anonymous caller. */
const apiOf = (app: FastifyInstance, caller: TestMember | null = admin) =>
  contractClient(app, caller ? { token: caller.token } : {}).admin;
const codeOf = (answer: { body: unknown }) => (answer.body as { code?: string } | undefined)?.code;

async function create(
  app: FastifyInstance,
  name: string,
  type: 'INCOME' | 'EXPENSE' = 'EXPENSE',
  parentId?: number | null,
): Promise<DefaultCategory> {
  const body = { name, type, ...(parentId !== undefined ? { parentId } : {}) };
  return bodyOf(await apiOf(app).createDefaultCategory({ body }), 201);
}
const update = (
  app: FastifyInstance,
  id: number,
  body: Parameters<ApiClient['admin']['updateDefaultCategory']>[0]['body'],
) => apiOf(app).updateDefaultCategory({ params: { id }, body });
const reorder = (app: FastifyInstance, ids: number[]) => apiOf(app).reorderDefaultCategories({ body: { ids } });
const remove = (app: FastifyInstance, id: number) => apiOf(app).deleteDefaultCategory({ params: { id } });
const list = async (app: FastifyInstance) => bodyOf(await apiOf(app).listDefaultCategories(), 200);

const rows = (app: FastifyInstance) => app.db.select().from(defaultCategory).orderBy(asc(defaultCategory.id));
const row = async (app: FastifyInstance, id: number) =>
  (await app.db.select().from(defaultCategory).where(eq(defaultCategory.id, id)))[0];

describe('guards', () => {
  type Answer = { status: number; body: unknown };
  type Admin = ApiClient['admin'];
  const routes = (id: number) => [
    {
      route: 'GET /api/admin/default-categories',
      call: (api: Admin): Promise<Answer> => api.listDefaultCategories(),
      ok: 200,
    },
    {
      route: 'PUT /api/admin/default-categories/reorder',
      call: (api: Admin): Promise<Answer> => api.reorderDefaultCategories({ body: { ids: [id] } }),
      ok: 204,
    },
    {
      route: 'POST /api/admin/default-categories',
      call: (api: Admin): Promise<Answer> => api.createDefaultCategory({ body: { name: 'Guarded', type: 'EXPENSE' } }),
      ok: 201,
    },
    {
      route: `PUT /api/admin/default-categories/${id}`,
      call: (api: Admin): Promise<Answer> => api.updateDefaultCategory({ params: { id }, body: { name: 'Renamed' } }),
      ok: 200,
    },
    {
      route: `DELETE /api/admin/default-categories/${id}`,
      call: (api: Admin): Promise<Answer> => api.deleteDefaultCategory({ params: { id } }),
      ok: 204,
    },
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
      for (const { route, call } of routes(food.id)) {
        const response = await call(apiOf(app, caller));
        expect(response.status, route).toBe(status);
        expect(codeOf(response)).toBe(code);
      }
    }
    expect((await rows(app)).map((r) => r.name)).toEqual(['Food']);

    const statuses: number[] = [];
    for (const { call } of routes(food.id)) statuses.push((await call(apiOf(app))).status);
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

    const listed = await apiOf(app).listDefaultCategories();
    expect(listed.status).toBe(200);
    expect(bodyOf(listed, 200).items.map((c) => c.name)).toEqual(['Salary', 'Food', 'Home', 'Lunch', 'Dinner', 'Rent']);
    expect(bodyOf(listed, 200).items[0]).toEqual(salary);
  });

  test('goes after the largest sort order even when there are gaps', async ({ app }) => {
    const food = await create(app, 'Food');
    await app.db.update(defaultCategory).set({ sortOrder: 7 }).where(eq(defaultCategory.id, food.id));
    expect((await create(app, 'Home')).sortOrder).toBe(8);
  });

  test('trims the name and refuses a name its type already has, at either level, with 409', async ({ app }) => {
    const food = await create(app, '  Food ');
    expect(food.name).toBe('Food');
    const createAnswer = (body: { name: string; type: 'INCOME' | 'EXPENSE'; parentId?: number }) =>
      apiOf(app).createDefaultCategory({ body });
    problemOf(await createAnswer({ name: 'Food', type: 'EXPENSE' }), 409, 'DUPLICATE_CATEGORY_NAME');

    // Entries refer to categories by name: one name per type, whatever the parent.
    await create(app, 'Food', 'INCOME');
    const underParent = await createAnswer({ name: 'Food', type: 'EXPENSE', parentId: food.id });
    expect(underParent.status).toBe(409);
    const home = await create(app, 'Home');
    await create(app, 'Snacks', 'EXPENSE', food.id);
    const elsewhere = await createAnswer({ name: 'Snacks', type: 'EXPENSE', parentId: home.id });
    expect(elsewhere.status).toBe(409);
  });

  test('two creates of one name at once: one 201, the others 409 DUPLICATE_CATEGORY_NAME', async ({ app }) => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => apiOf(app).createDefaultCategory({ body: { name: 'Food', type: 'EXPENSE' } })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409]);
    expect(answers.filter((answer) => answer.status === 409).map(codeOf)).toEqual([
      'DUPLICATE_CATEGORY_NAME',
      'DUPLICATE_CATEGORY_NAME',
      'DUPLICATE_CATEGORY_NAME',
    ]);
    expect(await rows(app)).toHaveLength(1);
  });

  test('refuses a sub-category under a sub-category with 400 CATEGORY_TOO_DEEP', async ({ app }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    const response = await apiOf(app).createDefaultCategory({
      body: { name: 'Sandwich', type: 'EXPENSE', parentId: lunch.id },
    });
    problemOf(response, 400, 'CATEGORY_TOO_DEEP');
    expect(await rows(app)).toHaveLength(2);
  });

  test('refuses a parent of the other type (400) and an unknown parent (404)', async ({ app }) => {
    const salary = await create(app, 'Salary', 'INCOME');
    const mismatch = await apiOf(app).createDefaultCategory({
      body: { name: 'Bonus', type: 'EXPENSE', parentId: salary.id },
    });
    problemOf(mismatch, 400, 'CATEGORY_TYPE_MISMATCH');
    const missing = await apiOf(app).createDefaultCategory({
      body: { name: 'Bonus', type: 'INCOME', parentId: 2_000_000_000 },
    });
    expect(missing.status).toBe(404);
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
      const response = await apiOf(app).createDefaultCategory({ body: payload as never });
      expect(response.status, JSON.stringify(payload)).toBe(400);
      expect(codeOf(response)).toBe('VALIDATION_FAILED');
    }
  });
});

describe('update', () => {
  test('renames, and refuses a name taken by a sibling with 409', async ({ app }) => {
    const food = await create(app, 'Food');
    await create(app, 'Home');
    const renamed = await update(app, food.id, { name: 'Meals' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...food, name: 'Meals' });
    problemOf(await update(app, food.id, { name: 'Home' }), 409, 'DUPLICATE_CATEGORY_NAME');
    expect((await row(app, food.id))?.name).toBe('Meals');
  });

  test('moves a childless top-level category under another one (last there) and back to the top', async ({ app }) => {
    const food = await create(app, 'Food');
    const snacks = await create(app, 'Snacks');
    await create(app, 'Lunch', 'EXPENSE', food.id);

    const moved = await update(app, snacks.id, { parentId: food.id });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: snacks.id, parentId: food.id, sortOrder: 1 });

    const back = await update(app, snacks.id, { parentId: null });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ parentId: null, sortOrder: 1 });
  });

  test('refuses to turn a top-level category that has children into a sub-category (409 CATEGORY_HAS_CHILDREN)', async ({
    app,
  }) => {
    const food = await create(app, 'Food');
    const home = await create(app, 'Home');
    await create(app, 'Lunch', 'EXPENSE', food.id);
    problemOf(await update(app, food.id, { parentId: home.id }), 409, 'CATEGORY_HAS_CHILDREN');
    expect((await row(app, food.id))?.parentId).toBeNull();
  });

  test('refuses a move under a sub-category or under itself (400), an unknown parent or category (404)', async ({
    app,
  }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    const home = await create(app, 'Home');

    problemOf(await update(app, home.id, { parentId: lunch.id }), 400, 'CATEGORY_TOO_DEEP');

    const itself = await update(app, home.id, { parentId: home.id });
    expect(itself.status).toBe(400);

    expect((await update(app, home.id, { parentId: 2_000_000_000 })).status).toBe(404);
    expect((await update(app, 2_000_000_000, { name: 'Ghost' })).status).toBe(404);
    expect((await update(app, home.id, { name: '' })).status).toBe(400);
  });

  test('keeps a sub-category’s type equal to its parent’s; a top-level type change carries the children', async ({
    app,
  }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    problemOf(await update(app, lunch.id, { type: 'INCOME' }), 400, 'CATEGORY_TYPE_MISMATCH');

    const salary = await create(app, 'Salary', 'INCOME');
    const switched = await update(app, food.id, { type: 'INCOME' });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ type: 'INCOME', parentId: null, sortOrder: salary.sortOrder + 1 });
    expect((await row(app, lunch.id))?.type).toBe('INCOME');
  });

  test('an empty body changes nothing', async ({ app }) => {
    const food = await create(app, 'Food');
    const response = await update(app, food.id, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(food);
  });
});

describe('delete', () => {
  test('deletes a sub-category and a childless top-level one; 404 afterwards', async ({ app }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    expect((await remove(app, lunch.id)).status).toBe(204);
    expect((await remove(app, food.id)).status).toBe(204);
    expect(await rows(app)).toEqual([]);
    problemOf(await remove(app, food.id), 404, 'NOT_FOUND');
  });

  test('refuses a top-level category with children with 409 CATEGORY_HAS_CHILDREN', async ({ app }) => {
    const food = await create(app, 'Food');
    await create(app, 'Lunch', 'EXPENSE', food.id);
    problemOf(await remove(app, food.id), 409, 'CATEGORY_HAS_CHILDREN');
    expect(await rows(app)).toHaveLength(2);
  });
});

describe('reorder', () => {
  test('sets 0..n-1 in the given order for one group of siblings', async ({ app }) => {
    const a = await create(app, 'A');
    const b = await create(app, 'B');
    const c = await create(app, 'C');
    const response = await reorder(app, [c.id, a.id, b.id]);
    expect(response.status).toBe(204);
    const byId = new Map((await rows(app)).map((r) => [r.id, r.sortOrder]));
    expect([byId.get(c.id), byId.get(a.id), byId.get(b.id)]).toEqual([0, 1, 2]);
    expect((await list(app)).items.map((item) => item.name)).toEqual(['C', 'A', 'B']);
  });

  test('reorders sub-categories of one parent', async ({ app }) => {
    const food = await create(app, 'Food');
    const lunch = await create(app, 'Lunch', 'EXPENSE', food.id);
    const dinner = await create(app, 'Dinner', 'EXPENSE', food.id);
    expect((await reorder(app, [dinner.id, lunch.id])).status).toBe(204);
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
      const response = await reorder(app, ids);
      expect(response.status, JSON.stringify(ids)).toBe(400);
      expect(codeOf(response)).toBe('INVALID_REORDER');
    }
    for (const payload of [{ ids: [] }, { ids: [food.id, food.id] }, {}]) {
      const response = await apiOf(app).reorderDefaultCategories({ body: payload as never });
      expect(response.status, JSON.stringify(payload)).toBe(400);
      expect(codeOf(response)).toBe('VALIDATION_FAILED');
    }
    expect((await reorder(app, [food.id, 2_000_000_000])).status).toBe(404);

    expect((await row(app, food.id))?.sortOrder).toBe(0);
    expect((await row(app, home.id))?.sortOrder).toBe(1);
  });
});
