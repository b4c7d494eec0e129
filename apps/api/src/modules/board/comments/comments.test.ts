import { type BoardPageQuerySchema, COMMENTS_PER_MINUTE, type CommentPage } from '@nestegg/contract';
import { comment, pointHistory } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import type { z } from 'zod';
import { type ApiClient, bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';
import { hoursAgo, insertComments, insertPost } from '../posts/board.fixture.js';

const ids = (page: { items: { id: number }[] }) => page.items.map((item) => item.id);
const commentsOf = (app: FastifyInstance, memberId: number) =>
  app.db.select().from(comment).where(eq(comment.memberId, memberId));

async function walk(
  api: ApiClient,
  postId: number,
  query: z.input<typeof BoardPageQuerySchema>,
): Promise<CommentPage[]> {
  const pages = [bodyOf(await api.board.listComments({ params: { id: postId }, query }), 200)];
  while (pages.at(-1)!.nextCursor) {
    const cursor = pages.at(-1)!.nextCursor!;
    pages.push(bodyOf(await api.board.listComments({ params: { id: postId }, query: { ...query, cursor } }), 200));
  }
  return pages;
}

describe('writing comments', () => {
  test('a member comments: 201, +10 points, counted on the post, listed for anyone', async ({
    app,
    free,
    other,
    anonymous,
  }) => {
    const target = await insertPost(app, other.id);
    const created = bodyOf(
      await free.api.board.createComment({ params: { id: target.id }, body: { body: ' Nice post ' } }),
      201,
    );
    expect(created).toMatchObject({
      postId: target.id,
      body: 'Nice post',
      blocked: false,
      hot: false,
      upCount: 0,
      downCount: 0,
      myVote: null,
      author: { id: free.id, avatarUrl: null },
    });
    const page = bodyOf(await anonymous.board.listComments({ params: { id: target.id }, query: {} }), 200);
    expect(page).toMatchObject({ items: [created], total: 1, page: 1, nextCursor: null });
    expect(bodyOf(await anonymous.board.getPost({ params: { id: target.id } }), 200).commentCount).toBe(1);
    const points = await app.db.select().from(pointHistory).where(eq(pointHistory.memberId, free.id));
    expect(points).toMatchObject([{ amount: 10, reason: 'COMMENT_WRITTEN' }]);
  });

  test('an unknown post is 404; a blocked post is 404 for everyone but admins', async ({ app, free, admin }) => {
    const blocked = await insertPost(app, admin.id, { blocked: true, blockReason: 'REPORTS' });
    problemOf(await free.api.board.createComment({ params: { id: 2_000_000 }, body: { body: 'x' } }), 404, 'NOT_FOUND');
    problemOf(
      await free.api.board.createComment({ params: { id: blocked.id }, body: { body: 'x' } }),
      404,
      'NOT_FOUND',
    );
    problemOf(await free.api.board.listComments({ params: { id: blocked.id }, query: {} }), 404, 'NOT_FOUND');
    bodyOf(await admin.api.board.createComment({ params: { id: blocked.id }, body: { body: 'noted' } }), 201);
    expect(bodyOf(await admin.api.board.listComments({ params: { id: blocked.id }, query: {} }), 200).total).toBe(1);
    expect(await commentsOf(app, free.id)).toEqual([]);
  });

  test(`more than ${COMMENTS_PER_MINUTE} comments a minute is 429 RATE_LIMITED with Retry-After`, async ({
    app,
    free,
    other,
  }) => {
    const target = await insertPost(app, other.id);
    const send = () => free.api.board.createComment({ params: { id: target.id }, body: { body: 'again' } });
    for (let i = 0; i < COMMENTS_PER_MINUTE; i += 1) bodyOf(await send(), 201);
    const limited = await send();
    problemOf(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await commentsOf(app, free.id)).toHaveLength(COMMENTS_PER_MINUTE);
  });

  test('a retry with the same Idempotency-Key answers the first comment again: one comment, one award', async ({
    app,
    free,
    other,
  }) => {
    const target = await insertPost(app, other.id);
    const send = () =>
      free.api.board.createComment({
        params: { id: target.id },
        body: { body: 'only once' },
        headers: { 'idempotency-key': 'comment-retry-0001' },
      });
    const answers = await Promise.all([send(), send()]);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(
      answers.filter((answer) => answer.status === 201).every((a) => bodyOf(a, 201).id === bodyOf(again, 201).id),
    ).toBe(true);
    expect(await commentsOf(app, free.id)).toHaveLength(1);
    const points = await app.db.select().from(pointHistory).where(eq(pointHistory.memberId, free.id));
    expect(points).toHaveLength(1);
  });
});

describe('editing and deleting comments', () => {
  test('the author edits and deletes; others get 403; admins may do both', async ({ app, free, other, admin }) => {
    const target = await insertPost(app, other.id);
    const [mine, second] = await insertComments(app, free.id, target.id, [{}, {}]);
    const edited = bodyOf(
      await free.api.board.updateComment({ params: { id: mine!.id }, body: { body: 'Edited' } }),
      200,
    );
    expect(edited).toMatchObject({ body: 'Edited', author: { id: free.id } });
    problemOf(await other.api.board.updateComment({ params: { id: mine!.id }, body: { body: 'x' } }), 403, 'FORBIDDEN');
    problemOf(await other.api.board.deleteComment({ params: { id: mine!.id } }), 403, 'FORBIDDEN');
    bodyOf(await admin.api.board.updateComment({ params: { id: mine!.id }, body: { body: 'By admin' } }), 200);
    expect((await admin.api.board.deleteComment({ params: { id: second!.id } })).status).toBe(204);
    expect((await free.api.board.deleteComment({ params: { id: mine!.id } })).status).toBe(204);
    expect(await commentsOf(app, free.id)).toEqual([]);
    expect(bodyOf(await other.api.board.getPost({ params: { id: target.id } }), 200).commentCount).toBe(0);
    problemOf(await free.api.board.deleteComment({ params: { id: mine!.id } }), 404, 'NOT_FOUND');
  });

  test('a blocked comment cannot be edited by its author (403) but can be deleted', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    const [blocked] = await insertComments(app, free.id, target.id, [{ blocked: true, blockReason: 'REPORTS' }]);
    problemOf(
      await free.api.board.updateComment({ params: { id: blocked!.id }, body: { body: 'Innocent now' } }),
      403,
      'FORBIDDEN',
    );
    expect((await free.api.board.deleteComment({ params: { id: blocked!.id } })).status).toBe(204);
  });
});

describe('the comments of a post', () => {
  test('hot comments first, then oldest first; the cursor walks the same order as the pages', async ({
    app,
    free,
    other,
    anonymous,
  }) => {
    const target = await insertPost(app, other.id);
    const rows = await insertComments(app, free.id, target.id, [
      {},
      { upCount: 70, createdAt: hoursAgo(5) },
      {},
      { upCount: 50, createdAt: hoursAgo(30) },
      { upCount: 200, createdAt: hoursAgo(2) },
      {},
      { upCount: 49 },
      {},
      { upCount: 55, createdAt: hoursAgo(1) },
      {},
    ]);
    const [c0, hot1, c2, old3, hot4, c5, few6, c7, hot8, c9] = rows.map((row) => row.id);
    const expected = [hot1, hot4, hot8, c0, c2, old3, c5, few6, c7, c9];
    const whole = bodyOf(await anonymous.board.listComments({ params: { id: target.id }, query: { size: 100 } }), 200);
    expect(ids(whole)).toEqual(expected);
    expect(whole.items.map((item) => item.hot)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(whole.total).toBe(10);
    for (const size of [2, 3, 4]) {
      const pages = await walk(anonymous, target.id, { size });
      expect(pages.flatMap(ids)).toEqual(expected);
      for (const [index, page] of pages.entries()) {
        const byOffset = await anonymous.board.listComments({
          params: { id: target.id },
          query: { size, page: index + 1 },
        });
        expect(ids(bodyOf(byOffset, 200))).toEqual(ids(page));
      }
    }
  });

  test('a blocked comment keeps its place with its body hidden from everyone but admins', async ({
    app,
    free,
    other,
    admin,
    anonymous,
  }) => {
    const target = await insertPost(app, other.id);
    const [shown, blocked] = await insertComments(app, free.id, target.id, [
      { body: 'fine' },
      { body: 'rude', blocked: true, blockReason: 'REPORTS' },
    ]);
    for (const api of [anonymous, other.api, free.api]) {
      const page = bodyOf(await api.board.listComments({ params: { id: target.id }, query: {} }), 200);
      expect(page.items.map((item) => [item.id, item.body, item.blocked])).toEqual([
        [shown!.id, 'fine', false],
        [blocked!.id, null, true],
      ]);
    }
    const seenByAdmin = bodyOf(await admin.api.board.listComments({ params: { id: target.id }, query: {} }), 200);
    expect(seenByAdmin.items.map((item) => item.body)).toEqual(['fine', 'rude']);
  });

  test('offset pages stop at MAX_OFFSET_ROWS; a foreign cursor is 400', async ({ app, other, anonymous }) => {
    const target = await insertPost(app, other.id);
    problemOf(
      await anonymous.board.listComments({ params: { id: target.id }, query: { page: 101, size: 100 } }),
      400,
      'OFFSET_TOO_DEEP',
    );
    const foreign = Buffer.from(JSON.stringify([1, 5, 5])).toString('base64url');
    problemOf(
      await anonymous.board.listComments({ params: { id: target.id }, query: { cursor: foreign } }),
      400,
      'CURSOR_INVALID',
    );
  });
});

describe('my comments', () => {
  test("newest first with the post's title and board; others' blocked posts left out", async ({ app, free, other }) => {
    const tips = await insertPost(app, other.id, { category: 'tips', title: 'How to save' });
    const hidden = await insertPost(app, other.id, { blocked: true, blockReason: 'REPORTS', title: 'Hidden' });
    const own = await insertPost(app, free.id, { blocked: true, blockReason: 'SPAM', title: 'My own' });
    const [first] = await insertComments(app, free.id, tips.id, [{ body: 'one' }]);
    await insertComments(app, free.id, hidden.id, [{ body: 'gone' }]);
    const [onOwn] = await insertComments(app, free.id, own.id, [{ body: 'mine' }]);
    const [blocked] = await insertComments(app, free.id, tips.id, [{ body: 'bad', blocked: true }]);
    await insertComments(app, other.id, tips.id, [{}]);
    const page = bodyOf(await free.api.board.myComments({ query: {} }), 200);
    expect(page.items.map((item) => [item.id, item.postTitle, item.postCategory, item.body])).toEqual([
      [blocked!.id, 'How to save', 'tips', null],
      [onOwn!.id, 'My own', 'community', 'mine'],
      [first!.id, 'How to save', 'tips', 'one'],
    ]);
    expect(page.total).toBe(3);
    const firstPage = bodyOf(await free.api.board.myComments({ query: { size: 2 } }), 200);
    const next = bodyOf(await free.api.board.myComments({ query: { size: 2, cursor: firstPage.nextCursor! } }), 200);
    expect([...ids(firstPage), ...ids(next)]).toEqual(ids(page));
    expect(next).toMatchObject({ total: null, nextCursor: null });
  });
});
