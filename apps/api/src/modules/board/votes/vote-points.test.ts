import { pointHistory } from '@nestegg/db';
import { desc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { callers, insertComment, insertPost, pointsOf, setPoints } from '../posts/board.fixture.js';

const reasonsOf = async (app: FastifyInstance, memberId: number) =>
  (
    await app.db
      .select({ amount: pointHistory.amount, reason: pointHistory.reason })
      .from(pointHistory)
      .where(eq(pointHistory.memberId, memberId))
      .orderBy(pointHistory.id)
  ).map((row) => `${row.reason} ${row.amount}`);

const votePost = async (voter: Caller, postId: number, direction: 'UP' | 'DOWN') =>
  bodyOf(await voter.api.board.votePost({ params: { id: postId }, body: { direction } }), 200);

describe('points for votes (spec Limits)', () => {
  test('an up vote: author +5, voter +1; its removal takes both back', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    await votePost(free, target.id, 'UP');
    expect([await pointsOf(app, other.id), await pointsOf(app, free.id)]).toEqual([5, 1]);
    await votePost(free, target.id, 'UP');
    expect([await pointsOf(app, other.id), await pointsOf(app, free.id)]).toEqual([0, 0]);
    expect(await reasonsOf(app, free.id)).toEqual(['UP_VOTE_GIVEN 1', 'UP_VOTE_CANCELLED -1']);
    expect(await reasonsOf(app, other.id)).toEqual(['UP_VOTE_RECEIVED 5', 'UP_VOTE_REVOKED -5']);
  });

  test('a down vote: author −1, given back when it goes; never below 0', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    await setPoints(app, other.id, 10);
    await votePost(free, target.id, 'DOWN');
    expect(await pointsOf(app, other.id)).toBe(9);
    await votePost(free, target.id, 'DOWN');
    expect(await pointsOf(app, other.id)).toBe(10);
    expect(await pointsOf(app, free.id)).toBe(0);

    // At 0 the down vote takes nothing, so its removal gives nothing: no way to mint a point.
    await setPoints(app, other.id, 0);
    await votePost(free, target.id, 'DOWN');
    await votePost(free, target.id, 'DOWN');
    expect(await pointsOf(app, other.id)).toBe(0);
  });

  test('a switch applies the cancel and the new vote', async ({ app, free, other }) => {
    const target = await insertComment(app, other.id, (await insertPost(app, other.id)).id);
    await setPoints(app, other.id, 10);
    await setPoints(app, free.id, 10);
    const voteComment = async (direction: 'UP' | 'DOWN') =>
      bodyOf(await free.api.board.voteComment({ params: { id: target.id }, body: { direction } }), 200);

    await voteComment('UP'); // author +5, voter +1
    expect([await pointsOf(app, other.id), await pointsOf(app, free.id)]).toEqual([15, 11]);
    await voteComment('DOWN'); // UP undone (author −5, voter −1), then DOWN (author −1)
    expect([await pointsOf(app, other.id), await pointsOf(app, free.id)]).toEqual([9, 10]);
    await voteComment('UP'); // DOWN undone (author +1), then UP (author +5, voter +1)
    expect([await pointsOf(app, other.id), await pointsOf(app, free.id)]).toEqual([15, 11]);
  });

  test('toggling a vote on and off does not farm points for anyone', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    await setPoints(app, free.id, 100);
    for (let round = 0; round < 14; round += 1) {
      await votePost(free, target.id, 'UP');
      await votePost(free, target.id, 'UP');
    }
    // The author is where they started; the voter got +1 for 10 votes (the daily cap) and paid 1 per removal.
    expect(await pointsOf(app, other.id)).toBe(0);
    expect(await pointsOf(app, free.id)).toBe(100 + 10 - 14);
    // The author's daily cap is spent by the churn: a real up vote now gives 0.
    const [stranger] = await callers(app, 1);
    await votePost(stranger!, target.id, 'UP');
    expect(await pointsOf(app, other.id)).toBe(0);
  });

  test('20 up votes at once give the author exactly the 50-point daily cap', async ({ app, other }) => {
    const target = await insertPost(app, other.id);
    const voters = await callers(app, 20);
    await Promise.all(voters.map((voter) => votePost(voter, target.id, 'UP')));
    expect(await pointsOf(app, other.id)).toBe(50);
    for (const voter of voters) expect(await pointsOf(app, voter.id)).toBe(1);
    const received = await app.db
      .select({ amount: pointHistory.amount })
      .from(pointHistory)
      .where(eq(pointHistory.memberId, other.id))
      .orderBy(desc(pointHistory.id));
    expect(received.reduce((sum, row) => sum + row.amount, 0)).toBe(50);
  });

  test('15 up votes of one member at once give the voter exactly the 10-point daily cap', async ({
    app,
    free,
    premium,
  }) => {
    const targets = await Promise.all(Array.from({ length: 15 }, () => insertPost(app, premium.id)));
    await Promise.all(targets.map((target) => votePost(free, target.id, 'UP')));
    expect(await pointsOf(app, free.id)).toBe(10);
    expect(await pointsOf(app, premium.id)).toBe(50);
  });

  test('parallel toggles of one member never double-grant', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    const answers = await Promise.all(Array.from({ length: 9 }, () => votePost(free, target.id, 'UP')));
    expect(answers.filter((answer) => answer.myVote === 'UP')).toHaveLength(5);
    // 9 toggles end with the vote on: 5 grants, 4 removals.
    expect(await pointsOf(app, other.id)).toBe(5);
    expect(await pointsOf(app, free.id)).toBe(1);
  });
});
