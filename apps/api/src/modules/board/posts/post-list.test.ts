import { type BoardCategory, MAX_OFFSET_ROWS, type PostListQuerySchema, type PostPage } from '@nestegg/contract';
import { post, postVote } from '@nestegg/db';
import { eq, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import type { z } from 'zod';
import { type ApiClient, bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { addTagGroup, callers, clearBoard, hoursAgo, insertPost, insertPosts } from './board.fixture.js';

const ids = (page: { items: { id: number }[] }) => page.items.map((item) => item.id);

/** Every page of a list through its cursors, starting at `page=1`. */
async function walk(api: ApiClient, query: z.input<typeof PostListQuerySchema>): Promise<PostPage[]> {
  const pages = [bodyOf(await api.board.listPosts({ query }), 200)];
  while (pages.at(-1)!.nextCursor) {
    pages.push(bodyOf(await api.board.listPosts({ query: { ...query, cursor: pages.at(-1)!.nextCursor! } }), 200));
  }
  return pages;
}

describe('the post list', () => {
  test('notices first, then newest; by board or every board', async ({ app, free, anonymous }) => {
    await clearBoard(app);
    const boards: BoardCategory[] = ['community', 'saving', 'tips', 'community', 'tips', 'saving', 'community'];
    const rows = await insertPosts(
      app,
      free.id,
      boards.map((category, index) => ({ category, notice: index === 1 || index === 2 })),
    );
    const [c0, s1, t2, c3, t4, s5, c6] = rows.map((row) => row.id);
    const all = bodyOf(await anonymous.board.listPosts({ query: {} }), 200);
    expect(ids(all)).toEqual([t2, s1, c6, s5, t4, c3, c0]);
    expect(all.total).toBe(7);
    const community = bodyOf(await anonymous.board.listPosts({ query: { category: 'community' } }), 200);
    expect(ids(community)).toEqual([c6, c3, c0]);
    expect(community.total).toBe(3);
    const saving = bodyOf(await anonymous.board.listPosts({ query: { category: 'saving', size: 1 } }), 200);
    expect(ids(saving)).toEqual([s1]);
    expect(saving).toMatchObject({ page: 1, size: 1, total: 2 });
    const second = bodyOf(await anonymous.board.listPosts({ query: { category: 'saving', size: 1, page: 2 } }), 200);
    expect(ids(second)).toEqual([s5]);
    expect(second.nextCursor).toBeNull();
  });

  test('the cursor walks the same order as the pages, for every board, one board and a tag', async ({
    app,
    free,
    anonymous,
  }) => {
    await clearBoard(app);
    await addTagGroup(app, 'All', [], ['fx']);
    const boards: BoardCategory[] = ['community', 'saving', 'tips'];
    await insertPosts(
      app,
      free.id,
      Array.from({ length: 40 }, (_, index) => ({
        category: boards[index % 3]!,
        notice: index % 7 === 0,
        tags: index % 2 === 0 ? ['fx'] : [],
      })),
    );
    for (const filter of [
      {},
      { category: 'saving' as const },
      { tag: 'fx' },
      { category: 'tips' as const, tag: 'fx' },
    ]) {
      const whole = bodyOf(await anonymous.board.listPosts({ query: { ...filter, size: 100 } }), 200);
      const pages = await walk(anonymous, { ...filter, size: 4 });
      expect(pages.length).toBeGreaterThan(1);
      expect(pages.flatMap(ids)).toEqual(ids(whole));
      expect(pages.every((page) => page.total === whole.total)).toBe(true);
      expect(pages.slice(1).every((page) => page.page === 1)).toBe(true);
      const byOffset = bodyOf(await anonymous.board.listPosts({ query: { ...filter, size: 4, page: 2 } }), 200);
      expect(ids(byOffset)).toEqual(ids(pages[1]!));
    }
  });

  test('the tag filter lists only posts carrying the tag, with its own total', async ({ app, free, anonymous }) => {
    await clearBoard(app);
    await addTagGroup(app, 'All', [], ['fx', 'tax']);
    const [fxCommunity, tax, fxTips] = await insertPosts(app, free.id, [
      { tags: ['fx'] },
      { tags: ['tax'] },
      { category: 'tips', tags: ['tax', 'fx'] },
    ]);
    const fx = bodyOf(await anonymous.board.listPosts({ query: { tag: 'fx' } }), 200);
    expect(ids(fx)).toEqual([fxTips!.id, fxCommunity!.id]);
    expect(fx.total).toBe(2);
    const taxTips = bodyOf(await anonymous.board.listPosts({ query: { tag: 'tax', category: 'tips' } }), 200);
    expect(ids(taxTips)).toEqual([fxTips!.id]);
    expect(taxTips.total).toBe(1);
    // Retagging moves the post between the tag's lists and totals.
    await app.db
      .update(post)
      .set({ tags: ['fx'] })
      .where(eq(post.id, tax!.id));
    const after = bodyOf(await anonymous.board.listPosts({ query: { tag: 'tax' } }), 200);
    expect(ids(after)).toEqual([fxTips!.id]);
    expect(after.total).toBe(1);
  });

  test('blocked posts are left out (lists, totals, hot posts) for everyone but admins', async ({
    app,
    free,
    other,
    admin,
    anonymous,
  }) => {
    await clearBoard(app);
    const [visible, blocked] = await insertPosts(app, free.id, [
      { upCount: 60 },
      { upCount: 90, blocked: true, blockReason: 'SPAM' },
    ]);
    for (const api of [anonymous, other.api, free.api]) {
      const page = bodyOf(await api.board.listPosts({ query: { category: 'community' } }), 200);
      expect(ids(page)).toEqual([visible!.id]);
      expect(page.total).toBe(1);
      expect(page.hotPosts.map((hot) => hot.id)).toEqual([visible!.id]);
    }
    const seenByAdmin = bodyOf(await admin.api.board.listPosts({ query: {} }), 200);
    expect(ids(seenByAdmin)).toEqual([blocked!.id, visible!.id]);
    expect(seenByAdmin.items[0]).toMatchObject({ blocked: true });
    expect(seenByAdmin.total).toBe(2);
    expect(seenByAdmin.hotPosts.map((hot) => hot.id)).toEqual([blocked!.id, visible!.id]);
    // Unblocking (a dismissal) brings it back into the counts.
    await app.db.update(post).set({ blocked: false, blockReason: null }).where(eq(post.id, blocked!.id));
    expect(bodyOf(await anonymous.board.listPosts({ query: {} }), 200).total).toBe(2);
  });

  test('up to three hot posts, most up-voted first, the same on every page and after a cursor', async ({
    app,
    free,
    anonymous,
  }) => {
    await clearBoard(app);
    await addTagGroup(app, 'All', [], ['fx']);
    const [warm, hottest, hot, alsoHot, old, fewVotes, otherBoard] = await insertPosts(app, free.id, [
      { upCount: 50, createdAt: hoursAgo(2) },
      { upCount: 300, createdAt: hoursAgo(3), tags: ['fx'] },
      { upCount: 120, createdAt: hoursAgo(23) },
      { upCount: 80, createdAt: hoursAgo(1), tags: ['fx'] },
      { upCount: 500, createdAt: hoursAgo(25) },
      { upCount: 49 },
      { upCount: 400, category: 'tips' },
    ]);
    await insertPosts(
      app,
      free.id,
      Array.from({ length: 6 }, () => ({})),
    );
    const first = bodyOf(await anonymous.board.listPosts({ query: { category: 'community', size: 2 } }), 200);
    const hotIds = [hottest!.id, hot!.id, alsoHot!.id];
    expect(first.hotPosts.map((p) => p.id)).toEqual(hotIds);
    expect(first.hotPosts.every((p) => p.hot)).toBe(true);
    const third = bodyOf(await anonymous.board.listPosts({ query: { category: 'community', size: 2, page: 3 } }), 200);
    expect(third.hotPosts.map((p) => p.id)).toEqual(hotIds);
    const next = bodyOf(
      await anonymous.board.listPosts({ query: { category: 'community', size: 2, cursor: first.nextCursor! } }),
      200,
    );
    expect(next.hotPosts.map((p) => p.id)).toEqual(hotIds);
    // Hot posts also keep their place in the list; old or under-voted ones are not hot.
    const whole = bodyOf(await anonymous.board.listPosts({ query: { category: 'community', size: 100 } }), 200);
    const hotFlags = Object.fromEntries(whole.items.map((p) => [p.id, p.hot]));
    expect(hotFlags).toMatchObject({ [warm!.id]: true, [old!.id]: false, [fewVotes!.id]: false });
    // Every board, and the tag filter, have their own hot posts.
    const all = bodyOf(await anonymous.board.listPosts({ query: {} }), 200);
    expect(all.hotPosts.map((p) => p.id)).toEqual([otherBoard!.id, hottest!.id, hot!.id]);
    const fx = bodyOf(await anonymous.board.listPosts({ query: { tag: 'fx' } }), 200);
    expect(fx.hotPosts.map((p) => p.id)).toEqual([hottest!.id, alsoHot!.id]);
  });

  test("each item carries the caller's own vote", async ({ app, free, other, anonymous }) => {
    await clearBoard(app);
    const [up, down, none] = await insertPosts(app, free.id, [{}, {}, {}]);
    await app.db.insert(postVote).values([
      { memberId: other.id, postId: up!.id, direction: 'UP' },
      { memberId: other.id, postId: down!.id, direction: 'DOWN' },
      { memberId: free.id, postId: none!.id, direction: 'UP' },
    ]);
    const votes = (page: PostPage) => Object.fromEntries(page.items.map((p) => [p.id, p.myVote]));
    expect(votes(bodyOf(await other.api.board.listPosts({ query: {} }), 200))).toEqual({
      [up!.id]: 'UP',
      [down!.id]: 'DOWN',
      [none!.id]: null,
    });
    expect(Object.values(votes(bodyOf(await anonymous.board.listPosts({ query: {} }), 200)))).toEqual([
      null,
      null,
      null,
    ]);
  });

  test('offset pages stop at MAX_OFFSET_ROWS; a cursor from elsewhere is 400', async ({ anonymous }) => {
    problemOf(
      await anonymous.board.listPosts({ query: { page: MAX_OFFSET_ROWS / 100 + 1, size: 100 } }),
      400,
      'OFFSET_TOO_DEEP',
    );
    bodyOf(await anonymous.board.listPosts({ query: { page: MAX_OFFSET_ROWS / 100, size: 100 } }), 200);
    const foreign = Buffer.from(JSON.stringify([1, '2024-01-01', 5])).toString('base64url');
    problemOf(await anonymous.board.listPosts({ query: { cursor: foreign } }), 400, 'CURSOR_INVALID');
    const notice = Buffer.from(JSON.stringify([1, 2, 5])).toString('base64url');
    problemOf(await anonymous.board.listPosts({ query: { cursor: notice } }), 400, 'CURSOR_INVALID');
  });

  test('a page past the end is empty and still carries the total', async ({ app, free, anonymous }) => {
    await clearBoard(app);
    await insertPost(app, free.id);
    const past = bodyOf(await anonymous.board.listPosts({ query: { page: 5 } }), 200);
    expect(past).toMatchObject({ items: [], total: 1, nextCursor: null, page: 5 });
  });
});

describe('the counted totals (decision BD5)', () => {
  const filters: { category?: BoardCategory; tag?: string }[] = [
    {},
    { category: 'tips' },
    { tag: 'fx' },
    { category: 'saving', tag: 'tax' },
  ];

  async function counted(app: FastifyInstance, filter: (typeof filters)[number]) {
    const rows = (await app.db.execute(sql`
      select count(*) filter (where not blocked)::int as visible, count(*)::int as every
        from post
       where (${filter.category ?? null}::text is null or category::text = ${filter.category ?? null})
         and (${filter.tag ?? null}::text is null or ${filter.tag ?? null} = any(tags))`)) as unknown as {
      visible: number;
      every: number;
    }[];
    return rows[0]!;
  }

  test('stay exact under concurrent writes, edits, blocks, deletions and a withdrawal', async ({
    app,
    admin,
    anonymous,
  }) => {
    await clearBoard(app);
    await addTagGroup(app, 'All', [], ['fx', 'tax']);
    const writers: Caller[] = await callers(app, 6);
    const boards: BoardCategory[] = ['community', 'saving', 'tips'];
    const created = await Promise.all(
      writers.flatMap((writer, w) =>
        [0, 1, 2].map((n) =>
          writer.api.board.createPost({
            body: {
              category: boards[(w + n) % 3]!,
              title: `T${w}${n}`,
              body: 'b',
              tags: n === 1 ? ['fx'] : ['fx', 'tax'],
            },
          }),
        ),
      ),
    );
    const ids = created.map((response) => bodyOf(response, 201).id);
    await Promise.all([
      ...ids
        .slice(0, 5)
        .map((id) => admin.api.board.updatePost({ params: { id }, body: { category: 'tips', tags: ['tax'] } })),
      ...ids.slice(5, 9).map((id) => admin.api.board.deletePost({ params: { id } })),
      app.db
        .update(post)
        .set({ blocked: true, blockReason: 'REPORTS' })
        .where(inArray(post.id, ids.slice(9, 11))),
    ]);
    expect((await admin.api.admin.deleteMember({ params: { id: writers[5]!.id } })).status).toBe(204);

    for (const filter of filters) {
      const expected = await counted(app, filter);
      const seen = bodyOf(await anonymous.board.listPosts({ query: filter }), 200);
      const seenByAdmin = bodyOf(await admin.api.board.listPosts({ query: filter }), 200);
      expect([seen.total, seenByAdmin.total], JSON.stringify(filter)).toEqual([expected.visible, expected.every]);
    }
  });
});

describe('my posts', () => {
  test('newest first, blocked ones included, paged by offset and cursor; total on offset pages', async ({
    app,
    free,
    other,
  }) => {
    const mine = await insertPosts(app, free.id, [
      {},
      { blocked: true, blockReason: 'SPAM' },
      { category: 'tips' },
      {},
    ]);
    await insertPost(app, other.id);
    const newestFirst = mine.map((row) => row.id).reverse();
    const first = bodyOf(await free.api.board.myPosts({ query: { size: 3 } }), 200);
    expect(ids(first)).toEqual(newestFirst.slice(0, 3));
    expect(first.total).toBe(4);
    expect(first.items.find((item) => item.id === mine[1]!.id)).toMatchObject({ blocked: true });
    const next = bodyOf(await free.api.board.myPosts({ query: { size: 3, cursor: first.nextCursor! } }), 200);
    expect(ids(next)).toEqual(newestFirst.slice(3));
    expect(next).toMatchObject({ total: null, nextCursor: null, page: 1 });
    expect(ids(bodyOf(await free.api.board.myPosts({ query: { size: 3, page: 2 } }), 200))).toEqual(
      newestFirst.slice(3),
    );
  });

  test('needs a session', async ({ anonymous }) => {
    problemOf(await anonymous.board.myPosts({ query: {} }), 401, 'UNAUTHENTICATED');
  });
});
