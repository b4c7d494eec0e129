import { defaultCategory } from '@nestegg/db';
import { asc, eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMemberWithSession, type TestMember, useTestApp } from '../../test/app.js';

const app = useTestApp();
const base = '/api/admin/default-categories';

let admin: TestMember;
let free: TestMember;
let premium: TestMember;

beforeAll(async () => {
  admin = await createMemberWithSession(app.current, { role: 'ADMIN' });
  free = await createMemberWithSession(app.current, { plan: 'FREE' });
  premium = await createMemberWithSession(app.current, { plan: 'PREMIUM' });
});

// Each test starts from an empty table (sub-categories first: a parent with children cannot go).
beforeEach(async () => {
  await app.current.db.execute('delete from default_category where parent_id is not null');
  await app.current.db.delete(defaultCategory);
});

type Category = { id: number; name: string; type: 'INCOME' | 'EXPENSE'; parentId: number | null; sortOrder: number };

const request = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
  caller: TestMember | null = admin,
) => app.current.inject({ method, url, ...(payload ? { payload } : {}), headers: caller?.headers ?? {} });

async function create(
  name: string,
  type: 'INCOME' | 'EXPENSE' = 'EXPENSE',
  parentId?: number | null,
): Promise<Category> {
  const response = await request('POST', base, { name, type, ...(parentId !== undefined ? { parentId } : {}) });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const rows = () => app.current.db.select().from(defaultCategory).orderBy(asc(defaultCategory.id));
const row = async (id: number) =>
  (await app.current.db.select().from(defaultCategory).where(eq(defaultCategory.id, id)))[0];

describe('guards', () => {
  const routes = (id: number) => [
    { method: 'GET' as const, url: base, ok: 200 },
    { method: 'PUT' as const, url: `${base}/reorder`, payload: { ids: [id] }, ok: 204 },
    { method: 'POST' as const, url: base, payload: { name: 'Guarded', type: 'EXPENSE' }, ok: 201 },
    { method: 'PUT' as const, url: `${base}/${id}`, payload: { name: 'Renamed' }, ok: 200 },
    { method: 'DELETE' as const, url: `${base}/${id}`, ok: 204 },
  ];

  it('anonymous → 401, FREE and PREMIUM members → 403, admins → 2xx; nothing changes for the refused', async () => {
    const food = await create('Food');
    for (const [caller, status, code] of [
      [null, 401, 'UNAUTHENTICATED'],
      [free, 403, 'ADMIN_REQUIRED'],
      [premium, 403, 'ADMIN_REQUIRED'],
    ] as const) {
      for (const route of routes(food.id)) {
        const response = await request(route.method, route.url, route.payload, caller);
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(status);
        expect(response.json().code).toBe(code);
      }
    }
    expect((await rows()).map((r) => r.name)).toEqual(['Food']);

    const statuses: number[] = [];
    for (const route of routes(food.id))
      statuses.push((await request(route.method, route.url, route.payload)).statusCode);
    expect(statuses).toEqual(routes(food.id).map((route) => route.ok));
  });
});

describe('create and list', () => {
  it('creates top-level and sub-categories, each last among its siblings', async () => {
    const food = await create('Food');
    const home = await create('Home');
    const salary = await create('Salary', 'INCOME');
    const lunch = await create('Lunch', 'EXPENSE', food.id);
    const dinner = await create('Dinner', 'EXPENSE', food.id);
    const rent = await create('Rent', 'EXPENSE', home.id);

    expect(food).toEqual({ id: food.id, name: 'Food', type: 'EXPENSE', parentId: null, sortOrder: 0 });
    expect(home.sortOrder).toBe(1);
    expect(salary.sortOrder).toBe(0); // INCOME top level is its own sibling group
    expect([lunch.sortOrder, dinner.sortOrder, rent.sortOrder]).toEqual([0, 1, 0]);
    expect(lunch.parentId).toBe(food.id);

    const list = await request('GET', base);
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

  it('goes after the largest sort order even when there are gaps', async () => {
    const food = await create('Food');
    await app.current.db.update(defaultCategory).set({ sortOrder: 7 }).where(eq(defaultCategory.id, food.id));
    expect((await create('Home')).sortOrder).toBe(8);
  });

  it('trims the name and refuses a name its type already has, at either level, with 409', async () => {
    const food = await create('  Food ');
    expect(food.name).toBe('Food');
    const duplicate = await request('POST', base, { name: 'Food', type: 'EXPENSE' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().code).toBe('DUPLICATE_CATEGORY_NAME');

    // Entries refer to categories by name: one name per type, whatever the parent.
    await create('Food', 'INCOME');
    const underParent = await request('POST', base, { name: 'Food', type: 'EXPENSE', parentId: food.id });
    expect(underParent.statusCode).toBe(409);
    const home = await create('Home');
    await create('Snacks', 'EXPENSE', food.id);
    const elsewhere = await request('POST', base, { name: 'Snacks', type: 'EXPENSE', parentId: home.id });
    expect(elsewhere.statusCode).toBe(409);
  });

  it('two creates of one name at once: one 201, the others 409 DUPLICATE_CATEGORY_NAME', async () => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => request('POST', base, { name: 'Food', type: 'EXPENSE' })),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 409, 409, 409]);
    expect(answers.filter((answer) => answer.statusCode === 409).map((answer) => answer.json().code)).toEqual([
      'DUPLICATE_CATEGORY_NAME',
      'DUPLICATE_CATEGORY_NAME',
      'DUPLICATE_CATEGORY_NAME',
    ]);
    expect(await rows()).toHaveLength(1);
  });

  it('refuses a sub-category under a sub-category with 400 CATEGORY_TOO_DEEP', async () => {
    const food = await create('Food');
    const lunch = await create('Lunch', 'EXPENSE', food.id);
    const response = await request('POST', base, { name: 'Sandwich', type: 'EXPENSE', parentId: lunch.id });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('CATEGORY_TOO_DEEP');
    expect(await rows()).toHaveLength(2);
  });

  it('refuses a parent of the other type (400) and an unknown parent (404)', async () => {
    const salary = await create('Salary', 'INCOME');
    const mismatch = await request('POST', base, { name: 'Bonus', type: 'EXPENSE', parentId: salary.id });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().code).toBe('CATEGORY_TYPE_MISMATCH');
    const missing = await request('POST', base, { name: 'Bonus', type: 'INCOME', parentId: 2_000_000_000 });
    expect(missing.statusCode).toBe(404);
  });

  it('validates the body with 400', async () => {
    for (const payload of [
      {},
      { name: '', type: 'EXPENSE' },
      { name: '   ', type: 'EXPENSE' },
      { name: 'x'.repeat(31), type: 'EXPENSE' },
      { name: 'Food', type: 'SPENDING' },
      { name: 'Food', type: 'EXPENSE', parentId: 0 },
      { name: 'Food', type: 'EXPENSE', parentId: 'abc' },
    ]) {
      const response = await request('POST', base, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('update', () => {
  it('renames, and refuses a name taken by a sibling with 409', async () => {
    const food = await create('Food');
    await create('Home');
    const renamed = await request('PUT', `${base}/${food.id}`, { name: 'Meals' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toEqual({ ...food, name: 'Meals' });
    const taken = await request('PUT', `${base}/${food.id}`, { name: 'Home' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('DUPLICATE_CATEGORY_NAME');
    expect((await row(food.id))?.name).toBe('Meals');
  });

  it('moves a childless top-level category under another one (last there) and back to the top', async () => {
    const food = await create('Food');
    const snacks = await create('Snacks');
    await create('Lunch', 'EXPENSE', food.id);

    const moved = await request('PUT', `${base}/${snacks.id}`, { parentId: food.id });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ id: snacks.id, parentId: food.id, sortOrder: 1 });

    const back = await request('PUT', `${base}/${snacks.id}`, { parentId: null });
    expect(back.statusCode).toBe(200);
    expect(back.json()).toMatchObject({ parentId: null, sortOrder: 1 });
  });

  it('refuses to turn a top-level category that has children into a sub-category (409 CATEGORY_HAS_CHILDREN)', async () => {
    const food = await create('Food');
    const home = await create('Home');
    await create('Lunch', 'EXPENSE', food.id);
    const response = await request('PUT', `${base}/${food.id}`, { parentId: home.id });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('CATEGORY_HAS_CHILDREN');
    expect((await row(food.id))?.parentId).toBeNull();
  });

  it('refuses a move under a sub-category or under itself (400), an unknown parent or category (404)', async () => {
    const food = await create('Food');
    const lunch = await create('Lunch', 'EXPENSE', food.id);
    const home = await create('Home');

    const tooDeep = await request('PUT', `${base}/${home.id}`, { parentId: lunch.id });
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json().code).toBe('CATEGORY_TOO_DEEP');

    const itself = await request('PUT', `${base}/${home.id}`, { parentId: home.id });
    expect(itself.statusCode).toBe(400);

    expect((await request('PUT', `${base}/${home.id}`, { parentId: 2_000_000_000 })).statusCode).toBe(404);
    expect((await request('PUT', `${base}/2000000000`, { name: 'Ghost' })).statusCode).toBe(404);
    expect((await request('PUT', `${base}/${home.id}`, { name: '' })).statusCode).toBe(400);
  });

  it('keeps a sub-category’s type equal to its parent’s; a top-level type change carries the children', async () => {
    const food = await create('Food');
    const lunch = await create('Lunch', 'EXPENSE', food.id);
    const mismatch = await request('PUT', `${base}/${lunch.id}`, { type: 'INCOME' });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().code).toBe('CATEGORY_TYPE_MISMATCH');

    const salary = await create('Salary', 'INCOME');
    const switched = await request('PUT', `${base}/${food.id}`, { type: 'INCOME' });
    expect(switched.statusCode).toBe(200);
    expect(switched.json()).toMatchObject({ type: 'INCOME', parentId: null, sortOrder: salary.sortOrder + 1 });
    expect((await row(lunch.id))?.type).toBe('INCOME');
  });

  it('an empty body changes nothing', async () => {
    const food = await create('Food');
    const response = await request('PUT', `${base}/${food.id}`, {});
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(food);
  });
});

describe('delete', () => {
  it('deletes a sub-category and a childless top-level one; 404 afterwards', async () => {
    const food = await create('Food');
    const lunch = await create('Lunch', 'EXPENSE', food.id);
    expect((await request('DELETE', `${base}/${lunch.id}`)).statusCode).toBe(204);
    expect((await request('DELETE', `${base}/${food.id}`)).statusCode).toBe(204);
    expect(await rows()).toEqual([]);
    const again = await request('DELETE', `${base}/${food.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('NOT_FOUND');
  });

  it('refuses a top-level category with children with 409 CATEGORY_HAS_CHILDREN', async () => {
    const food = await create('Food');
    await create('Lunch', 'EXPENSE', food.id);
    const response = await request('DELETE', `${base}/${food.id}`);
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('CATEGORY_HAS_CHILDREN');
    expect(await rows()).toHaveLength(2);
  });
});

describe('reorder', () => {
  it('sets 0..n-1 in the given order for one group of siblings', async () => {
    const a = await create('A');
    const b = await create('B');
    const c = await create('C');
    const response = await request('PUT', `${base}/reorder`, { ids: [c.id, a.id, b.id] });
    expect(response.statusCode).toBe(204);
    const byId = new Map((await rows()).map((r) => [r.id, r.sortOrder]));
    expect([byId.get(c.id), byId.get(a.id), byId.get(b.id)]).toEqual([0, 1, 2]);
    const list = (await request('GET', base)).json();
    expect(list.items.map((item: Category) => item.name)).toEqual(['C', 'A', 'B']);
  });

  it('reorders sub-categories of one parent', async () => {
    const food = await create('Food');
    const lunch = await create('Lunch', 'EXPENSE', food.id);
    const dinner = await create('Dinner', 'EXPENSE', food.id);
    expect((await request('PUT', `${base}/reorder`, { ids: [dinner.id, lunch.id] })).statusCode).toBe(204);
    expect((await row(dinner.id))?.sortOrder).toBe(0);
    expect((await row(lunch.id))?.sortOrder).toBe(1);
  });

  it('refuses ids that are not exactly one group of siblings with 400, unknown ids with 404', async () => {
    const food = await create('Food');
    const home = await create('Home');
    const salary = await create('Salary', 'INCOME');
    const lunch = await create('Lunch', 'EXPENSE', food.id);

    for (const ids of [
      [food.id], // incomplete: Home is missing
      [food.id, home.id, salary.id], // mixes types
      [food.id, home.id, lunch.id], // mixes levels
    ]) {
      const response = await request('PUT', `${base}/reorder`, { ids });
      expect(response.statusCode, JSON.stringify(ids)).toBe(400);
      expect(response.json().code).toBe('INVALID_REORDER');
    }
    for (const payload of [{ ids: [] }, { ids: [food.id, food.id] }, {}]) {
      const response = await request('PUT', `${base}/reorder`, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await request('PUT', `${base}/reorder`, { ids: [food.id, 2_000_000_000] })).statusCode).toBe(404);

    expect((await row(food.id))?.sortOrder).toBe(0);
    expect((await row(home.id))?.sortOrder).toBe(1);
  });
});
