import type { BoardCategory } from '@nestegg/contract';
import { boardTag, tagCategory } from '@nestegg/db';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

let made = 0;
const unique = (name: string) => {
  made += 1;
  return `${name} ${made}`;
};

/** Each test starts from no groups: the groups are shared by every member. */
async function clearGroups(app: FastifyInstance): Promise<void> {
  await app.db.delete(boardTag);
  await app.db.delete(tagCategory);
}

async function group(admin: Caller, boards: BoardCategory[], tags: string[] = []) {
  const created = bodyOf(await admin.api.board.createTagGroup({ body: { name: unique('Group'), boards } }), 201);
  for (const name of tags)
    bodyOf(await admin.api.board.createBoardTag({ params: { id: created.id }, body: { name } }), 201);
  return created;
}

const names = (list: { items: { name: string }[] }) => list.items.map((item) => item.name);

describe('GET /api/board/tag-groups', () => {
  test('lists the groups of a board plus the groups of every board; blank or no category lists all', async ({
    app,
    admin,
    free,
  }) => {
    await clearGroups(app);
    const everywhere = await group(admin, []);
    const saving = await group(admin, ['saving']);
    const tipsAndSaving = await group(admin, ['tips', 'saving']);
    const community = await group(admin, ['community']);

    const list = async (category?: BoardCategory | '') =>
      names(bodyOf(await free.api.board.tagGroups({ query: category === undefined ? {} : { category } }), 200));
    expect(await list('saving')).toEqual([everywhere.name, saving.name, tipsAndSaving.name]);
    expect(await list('tips')).toEqual([everywhere.name, tipsAndSaving.name]);
    expect(await list('community')).toEqual([everywhere.name, community.name]);
    const all = [everywhere.name, saving.name, tipsAndSaving.name, community.name];
    expect(await list('')).toEqual(all);
    expect(await list()).toEqual(all);
  });

  test('carries each group with its boards and its tags in order', async ({ app, admin, free }) => {
    await clearGroups(app);
    const created = await group(admin, ['tips', 'saving'], ['frugal', 'coupons']);
    expect(created.boards).toEqual(['saving', 'tips']);
    const [listed] = bodyOf(await free.api.board.tagGroups({ query: { category: 'tips' } }), 200).items;
    expect(listed).toMatchObject({ id: created.id, boards: ['saving', 'tips'], sortOrder: 0 });
    expect(listed!.tags.map((tag) => [tag.name, tag.sortOrder])).toEqual([
      ['frugal', 0],
      ['coupons', 1],
    ]);
  });

  test('needs a session and a known board', async ({ anonymous, free }) => {
    problemOf(await anonymous.board.tagGroups({ query: {} }), 401, 'UNAUTHENTICATED');
    const unknown = await free.api.board.tagGroups({ query: { category: 'stocks' as BoardCategory } });
    problemOf(unknown, 400, 'VALIDATION_FAILED');
  });
});

describe('tag group management (admin)', () => {
  test('creates, renames, re-boards and deletes groups; names are unique (409)', async ({ app, admin, free }) => {
    await clearGroups(app);
    const name = unique('Saving tips');
    const created = bodyOf(await admin.api.board.createTagGroup({ body: { name: `  ${name} ` } }), 201);
    expect(created).toMatchObject({ name, boards: [], tags: [], sortOrder: 0 });
    problemOf(await admin.api.board.createTagGroup({ body: { name } }), 409, 'DUPLICATE_NAME');

    const second = await group(admin, ['tips']);
    expect(second.sortOrder).toBe(1);
    problemOf(
      await admin.api.board.updateTagGroup({ params: { id: second.id }, body: { name } }),
      409,
      'DUPLICATE_NAME',
    );
    const updated = bodyOf(
      await admin.api.board.updateTagGroup({ params: { id: created.id }, body: { boards: ['community'] } }),
      200,
    );
    expect(updated).toMatchObject({ id: created.id, name, boards: ['community'] });
    const renamed = bodyOf(
      await admin.api.board.updateTagGroup({ params: { id: created.id }, body: { name: 'Renamed group' } }),
      200,
    );
    expect(renamed).toMatchObject({ name: 'Renamed group', boards: ['community'] });
    expect(bodyOf(await admin.api.board.updateTagGroup({ params: { id: created.id }, body: {} }), 200)).toEqual(
      renamed,
    );
    problemOf(
      await admin.api.board.createTagGroup({ body: { name: 'Twice', boards: ['tips', 'tips'] } }),
      400,
      'VALIDATION_FAILED',
    );

    bodyOf(await admin.api.board.deleteTagGroup({ params: { id: created.id } }), 204);
    problemOf(await admin.api.board.deleteTagGroup({ params: { id: created.id } }), 404, 'NOT_FOUND');
    problemOf(
      await admin.api.board.updateTagGroup({ params: { id: created.id }, body: { name: 'x' } }),
      404,
      'NOT_FOUND',
    );
    expect(names(bodyOf(await free.api.board.tagGroups({ query: {} }), 200))).toEqual([second.name]);
  });

  test('adds, renames and deletes tags; a name is unique within its group only', async ({ app, admin, free }) => {
    await clearGroups(app);
    const first = await group(admin, []);
    const second = await group(admin, []);
    const frugal = bodyOf(
      await admin.api.board.createBoardTag({ params: { id: first.id }, body: { name: 'frugal' } }),
      201,
    );
    expect(frugal).toMatchObject({ name: 'frugal', sortOrder: 0 });
    problemOf(
      await admin.api.board.createBoardTag({ params: { id: first.id }, body: { name: 'frugal' } }),
      409,
      'DUPLICATE_NAME',
    );
    bodyOf(await admin.api.board.createBoardTag({ params: { id: second.id }, body: { name: 'frugal' } }), 201);
    const coupons = bodyOf(
      await admin.api.board.createBoardTag({ params: { id: first.id }, body: { name: 'coupons' } }),
      201,
    );
    expect(coupons.sortOrder).toBe(1);
    problemOf(
      await admin.api.board.updateBoardTag({ params: { id: coupons.id }, body: { name: 'frugal' } }),
      409,
      'DUPLICATE_NAME',
    );
    expect(
      bodyOf(await admin.api.board.updateBoardTag({ params: { id: coupons.id }, body: { name: 'deals' } }), 200),
    ).toEqual({ id: coupons.id, name: 'deals', sortOrder: 1 });
    bodyOf(await admin.api.board.deleteBoardTag({ params: { id: frugal.id } }), 204);
    problemOf(await admin.api.board.deleteBoardTag({ params: { id: frugal.id } }), 404, 'NOT_FOUND');
    problemOf(
      await admin.api.board.updateBoardTag({ params: { id: frugal.id }, body: { name: 'x' } }),
      404,
      'NOT_FOUND',
    );
    problemOf(
      await admin.api.board.createBoardTag({ params: { id: 999_999 }, body: { name: 'orphan' } }),
      404,
      'NOT_FOUND',
    );

    const [listed] = bodyOf(await free.api.board.tagGroups({ query: {} }), 200).items;
    expect(listed!.tags.map((tag) => tag.name)).toEqual(['deals']);
    bodyOf(await admin.api.board.deleteTagGroup({ params: { id: second.id } }), 204);
    expect(await app.db.select().from(boardTag)).toHaveLength(1); // the group's tags went with it
  });

  test('parallel creates get distinct places', async ({ app, admin }) => {
    await clearGroups(app);
    const created = await Promise.all(
      Array.from({ length: 6 }, (_, index) => admin.api.board.createTagGroup({ body: { name: `Parallel ${index}` } })),
    );
    const orders = created.map((response) => bodyOf(response, 201).sortOrder).sort();
    expect(orders).toEqual([0, 1, 2, 3, 4, 5]);
  });

  test('reorders all groups, and one group’s tags; foreign or missing ids are 400 INVALID_REORDER', async ({
    app,
    admin,
    free,
  }) => {
    await clearGroups(app);
    const [a, b, c] = [await group(admin, [], ['x', 'y', 'z']), await group(admin, [], ['w']), await group(admin, [])];
    bodyOf(await admin.api.board.reorderTagGroups({ body: { ids: [c.id, a.id, b.id] } }), 204);
    expect(names(bodyOf(await free.api.board.tagGroups({ query: {} }), 200))).toEqual([c.name, a.name, b.name]);
    for (const ids of [
      [c.id, a.id],
      [c.id, a.id, b.id, 999_999],
      [c.id, a.id, 999_999],
    ]) {
      problemOf(await admin.api.board.reorderTagGroups({ body: { ids } }), 400, 'INVALID_REORDER');
    }

    const tagIds = (await app.db.select().from(boardTag)).reduce<Record<string, number>>(
      (byName, tag) => Object.assign(byName, { [tag.name]: tag.id }),
      {},
    );
    const [x, y, z, w] = [tagIds.x!, tagIds.y!, tagIds.z!, tagIds.w!];
    bodyOf(await admin.api.board.reorderBoardTags({ params: { id: a.id }, body: { ids: [z, x, y] } }), 204);
    const listed = bodyOf(await free.api.board.tagGroups({ query: {} }), 200).items.find((item) => item.id === a.id);
    expect(listed!.tags.map((tag) => tag.name)).toEqual(['z', 'x', 'y']);
    for (const ids of [
      [z, x],
      [z, x, y, w],
      [z, x, w],
    ]) {
      problemOf(
        await admin.api.board.reorderBoardTags({ params: { id: a.id }, body: { ids } }),
        400,
        'INVALID_REORDER',
      );
    }
    problemOf(
      await admin.api.board.reorderBoardTags({ params: { id: 999_999 }, body: { ids: [x] } }),
      404,
      'NOT_FOUND',
    );
  });

  test('members who are not admins get 403 ADMIN_REQUIRED on every management route', async ({
    app,
    admin,
    free,
    premium,
  }) => {
    await clearGroups(app);
    const existing = await group(admin, [], ['kept']);
    const [kept] = await app.db.select().from(boardTag);
    const tagId = kept!.id;
    for (const caller of [free, premium]) {
      const { board } = caller.api;
      const answers = [
        await board.createTagGroup({ body: { name: 'Mine' } }),
        await board.updateTagGroup({ params: { id: existing.id }, body: { name: 'Mine' } }),
        await board.deleteTagGroup({ params: { id: existing.id } }),
        await board.reorderTagGroups({ body: { ids: [existing.id] } }),
        await board.createBoardTag({ params: { id: existing.id }, body: { name: 'mine' } }),
        await board.updateBoardTag({ params: { id: tagId }, body: { name: 'mine' } }),
        await board.deleteBoardTag({ params: { id: tagId } }),
        await board.reorderBoardTags({ params: { id: existing.id }, body: { ids: [tagId] } }),
      ];
      for (const answer of answers) problemOf(answer, 403, 'ADMIN_REQUIRED');
    }
    const [listed] = bodyOf(await free.api.board.tagGroups({ query: {} }), 200).items;
    expect(listed).toMatchObject({ name: existing.name, tags: [{ name: 'kept' }] });
  });
});
