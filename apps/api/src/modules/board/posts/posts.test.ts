import { type CreatePostRequestSchema, POSTS_PER_MINUTE } from '@nestegg/contract';
import { pointHistory, post } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import type { z } from 'zod';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { addTagGroup, clearBoard, insertComments, insertPost } from './board.fixture.js';

const hello = { category: 'community', title: 'Hello', body: 'First post' } as const satisfies z.input<
  typeof CreatePostRequestSchema
>;

const postsOf = (app: FastifyInstance, memberId: number) =>
  app.db.select().from(post).where(eq(post.memberId, memberId));
const writingPoints = (app: FastifyInstance, memberId: number) =>
  app.db.select().from(pointHistory).where(eq(pointHistory.memberId, memberId));

describe('writing posts', () => {
  test('a member writes a post: 201 with the detail, +10 points, readable by anyone', async ({
    app,
    free,
    anonymous,
  }) => {
    const created = bodyOf(await free.api.board.createPost({ body: hello }), 201);
    expect(created).toMatchObject({
      category: 'community',
      title: 'Hello',
      body: 'First post',
      tags: [],
      notice: false,
      blocked: false,
      blockReason: null,
      upCount: 0,
      downCount: 0,
      myVote: null,
      commentCount: 0,
      recommenders: [],
      author: { id: free.id, displayName: 'Member', avatarUrl: null },
    });
    expect(bodyOf(await anonymous.board.getPost({ params: { id: created.id } }), 200)).toEqual(created);
    expect(await writingPoints(app, free.id)).toMatchObject([{ amount: 10, reason: 'POST_WRITTEN' }]);
  });

  test('notice is honoured for admins only', async ({ free, admin }) => {
    expect(bodyOf(await free.api.board.createPost({ body: { ...hello, notice: true } }), 201).notice).toBe(false);
    expect(bodyOf(await admin.api.board.createPost({ body: { ...hello, notice: true } }), 201).notice).toBe(true);
  });

  test("tags must be names from the tag groups shown on the post's board", async ({ app, free }) => {
    await clearBoard(app);
    await addTagGroup(app, 'Saving tags', ['saving'], ['budget']);
    await addTagGroup(app, 'Everywhere', [], ['question']);
    const saving = { ...hello, category: 'saving' } as const;
    expect(
      bodyOf(await free.api.board.createPost({ body: { ...saving, tags: ['budget', 'question'] } }), 201).tags,
    ).toEqual(['budget', 'question']);
    const refused = problemOf(
      await free.api.board.createPost({ body: { ...hello, tags: ['budget', 'question'] } }),
      400,
      'UNKNOWN_BOARD_TAG',
    );
    expect(refused.detail).toContain('budget');
    problemOf(await free.api.board.createPost({ body: { ...saving, tags: ['nope'] } }), 400, 'UNKNOWN_BOARD_TAG');
  });

  test('invalid bodies are 400 and nothing is stored', async ({ app, free }) => {
    const tooLong = { ...hello, title: 'x'.repeat(101) };
    problemOf(await free.api.board.createPost({ body: tooLong }), 400, 'VALIDATION_FAILED');
    problemOf(await free.api.board.createPost({ body: { ...hello, tags: ['a', 'a'] } }), 400, 'VALIDATION_FAILED');
    expect(await postsOf(app, free.id)).toEqual([]);
  });

  test('anonymous callers cannot write', async ({ anonymous }) => {
    problemOf(await anonymous.board.createPost({ body: hello }), 401, 'UNAUTHENTICATED');
  });
});

describe('editing and deleting posts', () => {
  test('the author edits the fields sent and keeps the others', async ({ app, free }) => {
    await clearBoard(app);
    await addTagGroup(app, 'Tips', ['tips'], ['howto']);
    const created = bodyOf(await free.api.board.createPost({ body: hello }), 201);
    const edited = bodyOf(
      await free.api.board.updatePost({ params: { id: created.id }, body: { title: 'Hello again' } }),
      200,
    );
    expect(edited).toMatchObject({ title: 'Hello again', body: 'First post', category: 'community' });
    const moved = bodyOf(
      await free.api.board.updatePost({ params: { id: created.id }, body: { category: 'tips', tags: ['howto'] } }),
      200,
    );
    expect(moved).toMatchObject({ category: 'tips', tags: ['howto'] });
    // Tags are checked against the new board when the board changes.
    problemOf(
      await free.api.board.updatePost({ params: { id: created.id }, body: { category: 'saving' } }),
      400,
      'UNKNOWN_BOARD_TAG',
    );
  });

  test("another member's edit or delete is 403 and changes nothing; an admin may do both", async ({
    app,
    free,
    other,
    admin,
  }) => {
    const created = bodyOf(await free.api.board.createPost({ body: hello }), 201);
    problemOf(
      await other.api.board.updatePost({ params: { id: created.id }, body: { title: 'Mine now' } }),
      403,
      'FORBIDDEN',
    );
    problemOf(await other.api.board.deletePost({ params: { id: created.id } }), 403, 'FORBIDDEN');
    expect((await postsOf(app, free.id))[0]).toMatchObject({ title: 'Hello' });
    const edited = bodyOf(
      await admin.api.board.updatePost({ params: { id: created.id }, body: { title: 'Moderated', notice: true } }),
      200,
    );
    expect(edited).toMatchObject({ title: 'Moderated', notice: true, author: { id: free.id } });
    expect((await admin.api.board.deletePost({ params: { id: created.id } })).status).toBe(204);
    expect(await postsOf(app, free.id)).toEqual([]);
  });

  test('notice in an edit is ignored for members', async ({ free }) => {
    const created = bodyOf(await free.api.board.createPost({ body: hello }), 201);
    const edited = bodyOf(await free.api.board.updatePost({ params: { id: created.id }, body: { notice: true } }), 200);
    expect(edited.notice).toBe(false);
  });

  test('deleting a post deletes its comments; unknown posts are 404', async ({ app, free, other }) => {
    const created = bodyOf(await free.api.board.createPost({ body: hello }), 201);
    await insertComments(app, other.id, created.id, [{}, {}]);
    expect((await free.api.board.deletePost({ params: { id: created.id } })).status).toBe(204);
    problemOf(await free.api.board.getPost({ params: { id: created.id } }), 404, 'NOT_FOUND');
    problemOf(await free.api.board.deletePost({ params: { id: created.id } }), 404, 'NOT_FOUND');
    problemOf(await free.api.board.updatePost({ params: { id: 2_000_000 }, body: { title: 'x' } }), 404, 'NOT_FOUND');
  });

  test('a blocked post is 404 for everyone but admins; its author may still delete it', async ({
    app,
    free,
    other,
    admin,
    anonymous,
  }) => {
    const blocked = await insertPost(app, free.id, { blocked: true, blockReason: 'REPORTS' });
    for (const caller of [free.api, other.api, anonymous]) {
      problemOf(await caller.board.getPost({ params: { id: blocked.id } }), 404, 'NOT_FOUND');
    }
    problemOf(await free.api.board.updatePost({ params: { id: blocked.id }, body: { title: 'x' } }), 404, 'NOT_FOUND');
    problemOf(await other.api.board.deletePost({ params: { id: blocked.id } }), 404, 'NOT_FOUND');
    expect(bodyOf(await admin.api.board.getPost({ params: { id: blocked.id } }), 200)).toMatchObject({
      blocked: true,
      blockReason: 'REPORTS',
    });
    expect((await free.api.board.deletePost({ params: { id: blocked.id } })).status).toBe(204);
  });
});

describe('notices', () => {
  test('admins set and clear the notice flag; members get 403 ADMIN_REQUIRED', async ({ app, free, admin }) => {
    const created = await insertPost(app, free.id);
    problemOf(await free.api.board.setNotice({ params: { id: created.id } }), 403, 'ADMIN_REQUIRED');
    expect((await admin.api.board.setNotice({ params: { id: created.id } })).status).toBe(204);
    expect(bodyOf(await free.api.board.getPost({ params: { id: created.id } }), 200).notice).toBe(true);
    expect((await admin.api.board.clearNotice({ params: { id: created.id } })).status).toBe(204);
    const cleared = bodyOf(await free.api.board.getPost({ params: { id: created.id } }), 200);
    expect(cleared).toMatchObject({ notice: false, updatedAt: created.updatedAt.toISOString() });
    problemOf(await admin.api.board.setNotice({ params: { id: 2_000_000 } }), 404, 'NOT_FOUND');
  });
});

describe('writing points', () => {
  test('parallel posts and comments earn at most 50 points a day together', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    const answers = await Promise.all([
      ...Array.from({ length: POSTS_PER_MINUTE }, () => free.api.board.createPost({ body: hello })),
      ...Array.from({ length: 4 }, () =>
        free.api.board.createComment({ params: { id: target.id }, body: { body: 'Nice' } }),
      ),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(Array(POSTS_PER_MINUTE + 4).fill(201));
    const history = await writingPoints(app, free.id);
    expect(history.reduce((sum, row) => sum + row.amount, 0)).toBe(50);
    expect(bodyOf(await free.api.auth.points(), 200).points).toBe(50);
  });
});

describe('abuse controls on posts', () => {
  test(`more than ${POSTS_PER_MINUTE} posts a minute is 429 RATE_LIMITED with Retry-After, per member`, async ({
    app,
    free,
    other,
  }) => {
    for (let i = 0; i < POSTS_PER_MINUTE; i += 1) bodyOf(await free.api.board.createPost({ body: hello }), 201);
    const limited = await free.api.board.createPost({ body: hello });
    problemOf(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await postsOf(app, free.id)).toHaveLength(POSTS_PER_MINUTE);
    bodyOf(await other.api.board.createPost({ body: hello }), 201);
  });

  test('a retry with the same Idempotency-Key answers the first post again: one post, one award', async ({
    app,
    free,
  }) => {
    const send = (caller: Caller) =>
      caller.api.board.createPost({ body: hello, headers: { 'idempotency-key': 'post-retry-0001' } });
    const first = bodyOf(await send(free), 201);
    const again = await send(free);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first);
    expect(await postsOf(app, free.id)).toHaveLength(1);
    expect(await writingPoints(app, free.id)).toHaveLength(1);
    problemOf(
      await free.api.board.createPost({
        body: { ...hello, title: 'Other' },
        headers: { 'idempotency-key': 'post-retry-0001' },
      }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });
});
