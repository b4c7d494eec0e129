import { postVote } from '@nestegg/db';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { encodeCursor } from '../../../lib/cursor.js';
import { bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';
import { callers, insertPost } from '../posts/board.fixture.js';

describe('GET /api/board/posts/{id}/recommenders', () => {
  test('lists the up-voters newest first, by page and by cursor, without the down-voters', async ({
    app,
    free,
    other,
  }) => {
    const target = await insertPost(app, other.id);
    const upVoters = await callers(app, 25);
    const downVoters = await callers(app, 3);
    for (const voter of upVoters) {
      bodyOf(await voter.api.board.votePost({ params: { id: target.id }, body: { direction: 'UP' } }), 200);
    }
    for (const voter of downVoters) {
      bodyOf(await voter.api.board.votePost({ params: { id: target.id }, body: { direction: 'DOWN' } }), 200);
    }
    const newestFirst = upVoters.map((voter) => voter.id).reverse();

    const first = bodyOf(
      await free.api.board.listRecommenders({ params: { id: target.id }, query: { size: 10 } }),
      200,
    );
    expect(first).toMatchObject({ page: 1, size: 10, total: 25 });
    expect(first.items.map((author) => author.id)).toEqual(newestFirst.slice(0, 10));
    expect(first.items[0]).toEqual({ id: upVoters.at(-1)!.id, displayName: 'Member', avatarUrl: null });

    const third = bodyOf(
      await free.api.board.listRecommenders({ params: { id: target.id }, query: { page: 3, size: 10 } }),
      200,
    );
    expect(third.items.map((author) => author.id)).toEqual(newestFirst.slice(20));
    expect(third.nextCursor).toBeNull();

    const walked: number[] = [];
    let cursor: string | null | undefined;
    do {
      const page = bodyOf(
        await free.api.board.listRecommenders({
          params: { id: target.id },
          query: { size: 7, ...(cursor ? { cursor } : {}) },
        }),
        200,
      );
      walked.push(...page.items.map((author) => author.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(walked).toEqual(newestFirst);
  });

  test('votes cast in the same instant page by cursor without a gap or a repeat', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    const voters = await callers(app, 6);
    await app.db
      .insert(postVote)
      .values(voters.map((voter) => ({ memberId: voter.id, postId: target.id, direction: 'UP' as const })));
    await app.db
      .update(postVote)
      .set({ createdAt: sql`'2026-01-01T00:00:00.123456Z'` })
      .where(eq(postVote.postId, target.id));
    const firstPage = bodyOf(
      await free.api.board.listRecommenders({ params: { id: target.id }, query: { size: 4 } }),
      200,
    );
    const secondPage = bodyOf(
      await free.api.board.listRecommenders({
        params: { id: target.id },
        query: { size: 4, cursor: firstPage.nextCursor! },
      }),
      200,
    );
    // Same instant: the member id breaks the tie, highest first.
    expect([...firstPage.items, ...secondPage.items].map((author) => author.id)).toEqual(
      voters.map((voter) => voter.id).sort((a, b) => b - a),
    );
  });

  test('a switch to UP lists the voter as the newest', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    const [early, late] = await callers(app, 2);
    await early!.api.board.votePost({ params: { id: target.id }, body: { direction: 'DOWN' } });
    await late!.api.board.votePost({ params: { id: target.id }, body: { direction: 'UP' } });
    await early!.api.board.votePost({ params: { id: target.id }, body: { direction: 'UP' } });
    const page = bodyOf(await free.api.board.listRecommenders({ params: { id: target.id }, query: {} }), 200);
    expect(page.items.map((author) => author.id)).toEqual([early!.id, late!.id]);
    const [row] = await app.db
      .select()
      .from(postVote)
      .where(and(eq(postVote.postId, target.id), eq(postVote.memberId, early!.id)));
    expect(row!.direction).toBe('UP');
  });

  test('a missing or blocked post is 404 for members, readable by admins', async ({ app, free, admin, other }) => {
    const blocked = await insertPost(app, other.id, { blocked: true, blockReason: 'REPORTS' });
    problemOf(await free.api.board.listRecommenders({ params: { id: blocked.id }, query: {} }), 404, 'NOT_FOUND');
    problemOf(await free.api.board.listRecommenders({ params: { id: 2_000_000_000 }, query: {} }), 404, 'NOT_FOUND');
    expect(bodyOf(await admin.api.board.listRecommenders({ params: { id: blocked.id }, query: {} }), 200)).toEqual({
      items: [],
      page: 1,
      size: 20,
      total: 0,
      nextCursor: null,
    });
  });

  test('a foreign cursor is 400 CURSOR_INVALID; a deep offset is 400 OFFSET_TOO_DEEP', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    for (const cursor of ['abc', encodeCursor(['x', 1]), encodeCursor([1]), encodeCursor([-5, 1])]) {
      problemOf(
        await free.api.board.listRecommenders({ params: { id: target.id }, query: { cursor } }),
        400,
        'CURSOR_INVALID',
      );
    }
    problemOf(
      await free.api.board.listRecommenders({ params: { id: target.id }, query: { page: 101, size: 100 } }),
      400,
      'OFFSET_TOO_DEEP',
    );
  });
});
