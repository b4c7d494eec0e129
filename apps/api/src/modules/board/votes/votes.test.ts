import { comment, commentVote, post, postVote } from '@nestegg/db';
import { and, count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';
import { callers, insertComment, insertPost } from '../posts/board.fixture.js';

async function postCounts(app: FastifyInstance, postId: number) {
  const [row] = await app.db.select({ up: post.upCount, down: post.downCount }).from(post).where(eq(post.id, postId));
  const rows = async (direction: 'UP' | 'DOWN') =>
    (
      await app.db
        .select({ n: count() })
        .from(postVote)
        .where(and(eq(postVote.postId, postId), eq(postVote.direction, direction)))
    )[0]!.n;
  return { counters: { up: row!.up, down: row!.down }, rows: { up: await rows('UP'), down: await rows('DOWN') } };
}

async function commentCounts(app: FastifyInstance, commentId: number) {
  const [row] = await app.db
    .select({ up: comment.upCount, down: comment.downCount })
    .from(comment)
    .where(eq(comment.id, commentId));
  const votes = await app.db.select().from(commentVote).where(eq(commentVote.commentId, commentId));
  return {
    counters: { up: row!.up, down: row!.down },
    rows: {
      up: votes.filter((v) => v.direction === 'UP').length,
      down: votes.filter((v) => v.direction === 'DOWN').length,
    },
  };
}

describe('votes on posts', () => {
  test('toggle: the same direction removes the vote, the other switches it', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    const vote = (direction: 'UP' | 'DOWN') =>
      free.api.board.votePost({ params: { id: target.id }, body: { direction } });

    expect(bodyOf(await vote('UP'), 200)).toEqual({ upCount: 1, downCount: 0, myVote: 'UP' });
    expect(bodyOf(await vote('UP'), 200)).toEqual({ upCount: 0, downCount: 0, myVote: null });
    expect(bodyOf(await vote('DOWN'), 200)).toEqual({ upCount: 0, downCount: 1, myVote: 'DOWN' });
    expect(bodyOf(await vote('UP'), 200)).toEqual({ upCount: 1, downCount: 0, myVote: 'UP' });
    expect(bodyOf(await vote('DOWN'), 200)).toEqual({ upCount: 0, downCount: 1, myVote: 'DOWN' });

    const votes = await app.db.select().from(postVote).where(eq(postVote.postId, target.id));
    expect(votes).toMatchObject([{ memberId: free.id, direction: 'DOWN' }]);
  });

  test("one member's vote leaves the others' votes alone; counts add up", async ({ app, free, premium, other }) => {
    const target = await insertPost(app, other.id);
    bodyOf(await free.api.board.votePost({ params: { id: target.id }, body: { direction: 'UP' } }), 200);
    const second = await premium.api.board.votePost({ params: { id: target.id }, body: { direction: 'DOWN' } });
    expect(bodyOf(second, 200)).toEqual({ upCount: 1, downCount: 1, myVote: 'DOWN' });
    const votes = await app.db.select().from(postVote).where(eq(postVote.postId, target.id));
    expect(votes.map((v) => [v.memberId, v.direction]).sort()).toEqual(
      [
        [free.id, 'UP'],
        [premium.id, 'DOWN'],
      ].sort(),
    );
  });

  test('voting on your own post is 400 OWN_CONTENT and changes nothing', async ({ app, free }) => {
    const own = await insertPost(app, free.id);
    problemOf(await free.api.board.votePost({ params: { id: own.id }, body: { direction: 'UP' } }), 400, 'OWN_CONTENT');
    expect(await postCounts(app, own.id)).toEqual({ counters: { up: 0, down: 0 }, rows: { up: 0, down: 0 } });
  });

  test('a missing or blocked post is 404 for members; admins can still vote on a blocked one', async ({
    app,
    free,
    admin,
    other,
  }) => {
    const blocked = await insertPost(app, other.id, { blocked: true, blockReason: 'REPORTS' });
    const vote = { body: { direction: 'UP' as const } };
    problemOf(await free.api.board.votePost({ params: { id: blocked.id }, ...vote }), 404, 'NOT_FOUND');
    problemOf(await free.api.board.votePost({ params: { id: 2_000_000_000 }, ...vote }), 404, 'NOT_FOUND');
    expect(bodyOf(await admin.api.board.votePost({ params: { id: blocked.id }, ...vote }), 200).upCount).toBe(1);
  });

  test('20 members voting at once: the counters equal the vote rows', async ({ app, other }) => {
    const target = await insertPost(app, other.id);
    const voters = await callers(app, 20);
    const answers = await Promise.all(
      voters.map((voter, index) =>
        voter.api.board.votePost({ params: { id: target.id }, body: { direction: index % 4 === 0 ? 'DOWN' : 'UP' } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(voters.map(() => 200));
    expect(await postCounts(app, target.id)).toEqual({ counters: { up: 15, down: 5 }, rows: { up: 15, down: 5 } });
  });

  test('10 toggles of one member at once: the counters equal the vote rows', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        free.api.board.votePost({ params: { id: target.id }, body: { direction: index % 3 === 0 ? 'DOWN' : 'UP' } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    const { counters, rows } = await postCounts(app, target.id);
    expect(counters).toEqual(rows);
    expect(rows.up + rows.down).toBeLessThanOrEqual(1);
  });
});

describe('votes on comments', () => {
  test('toggle and switch, own comment refused, counts true under parallel voters', async ({
    app,
    free,
    premium,
    other,
  }) => {
    const parent = await insertPost(app, premium.id);
    const target = await insertComment(app, other.id, parent.id);
    const vote = (direction: 'UP' | 'DOWN') =>
      free.api.board.voteComment({ params: { id: target.id }, body: { direction } });
    expect(bodyOf(await vote('DOWN'), 200)).toEqual({ upCount: 0, downCount: 1, myVote: 'DOWN' });
    expect(bodyOf(await vote('UP'), 200)).toEqual({ upCount: 1, downCount: 0, myVote: 'UP' });
    expect(bodyOf(await vote('UP'), 200)).toEqual({ upCount: 0, downCount: 0, myVote: null });
    problemOf(
      await other.api.board.voteComment({ params: { id: target.id }, body: { direction: 'UP' } }),
      400,
      'OWN_CONTENT',
    );

    const voters = await callers(app, 12);
    await Promise.all(
      voters.map((voter) => voter.api.board.voteComment({ params: { id: target.id }, body: { direction: 'UP' } })),
    );
    await Promise.all(
      Array.from({ length: 10 }, () =>
        free.api.board.voteComment({ params: { id: target.id }, body: { direction: 'DOWN' } }),
      ),
    );
    const { counters, rows } = await commentCounts(app, target.id);
    expect(counters).toEqual(rows);
    expect(rows.up).toBe(12);
  });

  test('a blocked comment, or a comment on a blocked post, is 404 for members', async ({ app, free, other, admin }) => {
    const visible = await insertPost(app, other.id);
    const hiddenPost = await insertPost(app, other.id, { blocked: true, blockReason: 'SPAM' });
    const blocked = await insertComment(app, other.id, visible.id, { blocked: true, blockReason: 'REPORTS' });
    const onHiddenPost = await insertComment(app, other.id, hiddenPost.id);
    for (const id of [blocked.id, onHiddenPost.id, 2_000_000_000]) {
      problemOf(await free.api.board.voteComment({ params: { id }, body: { direction: 'UP' } }), 404, 'NOT_FOUND');
    }
    expect(
      bodyOf(await admin.api.board.voteComment({ params: { id: onHiddenPost.id }, body: { direction: 'DOWN' } }), 200),
    ).toEqual({ upCount: 0, downCount: 1, myVote: 'DOWN' });
  });
});

describe('vote rate limit', () => {
  test('the 31st vote within a minute is 429 RATE_LIMITED with Retry-After, posts and comments together', async ({
    app,
    free,
    other,
  }) => {
    const target = await insertPost(app, other.id);
    const reply = await insertComment(app, other.id, target.id);
    for (let index = 0; index < 15; index += 1) {
      bodyOf(await free.api.board.votePost({ params: { id: target.id }, body: { direction: 'UP' } }), 200);
      bodyOf(await free.api.board.voteComment({ params: { id: reply.id }, body: { direction: 'UP' } }), 200);
    }
    const limited = await free.api.board.votePost({ params: { id: target.id }, body: { direction: 'UP' } });
    problemOf(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another member has a budget of their own.
    const [someoneElse] = await callers(app, 1);
    bodyOf(await someoneElse!.api.board.votePost({ params: { id: target.id }, body: { direction: 'UP' } }), 200);
  });
});
