import type { ReportTargetType } from '@nestegg/contract';
import { comment, moderationEvent, post, report } from '@nestegg/db';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { callers, insertComment, insertPost } from '../posts/board.fixture.js';

const reportPost = (caller: Caller, id: number, reason = 'Abusive') =>
  caller.api.board.reportPost({ params: { id }, body: { reason } });
const reportComment = (caller: Caller, id: number, reason = 'Abusive') =>
  caller.api.board.reportComment({ params: { id }, body: { reason } });

async function postState(app: FastifyInstance, id: number) {
  const [row] = await app.db
    .select({ blocked: post.blocked, blockReason: post.blockReason, reportCount: post.reportCount })
    .from(post)
    .where(eq(post.id, id));
  return row!;
}

const eventsOf = (app: FastifyInstance, targetType: ReportTargetType, targetId: number) =>
  app.db
    .select({ action: moderationEvent.action, actorId: moderationEvent.actorId, reason: moderationEvent.reason })
    .from(moderationEvent)
    .where(and(eq(moderationEvent.targetType, targetType), eq(moderationEvent.targetId, targetId)));

describe('reports', () => {
  test('once per member per target: a second is 409 ALREADY_REPORTED; your own is 400 OWN_CONTENT', async ({
    app,
    free,
    other,
  }) => {
    const target = await insertPost(app, other.id);
    expect((await reportPost(free, target.id)).status).toBe(204);
    problemOf(await reportPost(free, target.id, 'Again'), 409, 'ALREADY_REPORTED');
    problemOf(await reportPost(other, target.id), 400, 'OWN_CONTENT');
    const reply = await insertComment(app, free.id, target.id);
    problemOf(await reportComment(free, reply.id), 400, 'OWN_CONTENT');
    expect((await reportComment(other, reply.id)).status).toBe(204);
    problemOf(await reportComment(other, reply.id), 409, 'ALREADY_REPORTED');
    expect(await app.db.select().from(report).where(eq(report.memberId, free.id))).toHaveLength(1);
    expect((await postState(app, target.id)).reportCount).toBe(1);
  });

  test('the same report sent 8 times at once is filed once', async ({ app, free, other }) => {
    const target = await insertPost(app, other.id);
    const answers = await Promise.all(Array.from({ length: 8 }, () => reportPost(free, target.id)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, 409, 409, 409, 409, 409, 409, 409]);
    expect((await postState(app, target.id)).reportCount).toBe(1);
  });

  test('missing and hidden content is 404 for members', async ({ app, free, other }) => {
    const blocked = await insertPost(app, other.id, { blocked: true, blockReason: 'SPAM' });
    const onBlocked = await insertComment(app, other.id, blocked.id);
    problemOf(await reportPost(free, blocked.id), 404, 'NOT_FOUND');
    problemOf(await reportPost(free, 2_000_000_000), 404, 'NOT_FOUND');
    problemOf(await reportComment(free, onBlocked.id), 404, 'NOT_FOUND');
  });

  test('the fifth counted report blocks a post (REPORTS), once, also when the reports arrive at once', async ({
    app,
    free,
    other,
  }) => {
    const slow = await insertPost(app, other.id);
    const reporters = await callers(app, 5);
    for (const reporter of reporters.slice(0, 4)) expect((await reportPost(reporter, slow.id)).status).toBe(204);
    expect(await postState(app, slow.id)).toEqual({ blocked: false, blockReason: null, reportCount: 4 });
    expect((await reportPost(reporters[4]!, slow.id)).status).toBe(204);
    expect(await postState(app, slow.id)).toEqual({ blocked: true, blockReason: 'REPORTS', reportCount: 5 });
    // Blocked: members no longer reach it.
    problemOf(await free.api.board.votePost({ params: { id: slow.id }, body: { direction: 'UP' } }), 404, 'NOT_FOUND');
    problemOf(await reportPost(free, slow.id), 404, 'NOT_FOUND');
    expect(await eventsOf(app, 'POST', slow.id)).toEqual([{ action: 'BLOCKED', actorId: null, reason: 'REPORTS' }]);

    const burst = await insertPost(app, other.id);
    const crowd = await callers(app, 7);
    const answers = await Promise.all(crowd.map((reporter) => reportPost(reporter, burst.id)));
    // Once blocked, the rest find nothing to report.
    expect(answers.filter((answer) => answer.status === 204)).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 404)).toHaveLength(2);
    expect(await postState(app, burst.id)).toEqual({ blocked: true, blockReason: 'REPORTS', reportCount: 5 });
    expect(await eventsOf(app, 'POST', burst.id)).toHaveLength(1);
  });

  test('the fifth counted report blocks a comment; its post stays', async ({ app, other, premium }) => {
    const parent = await insertPost(app, premium.id);
    const target = await insertComment(app, other.id, parent.id);
    for (const reporter of await callers(app, 5)) expect((await reportComment(reporter, target.id)).status).toBe(204);
    const [row] = await app.db.select().from(comment).where(eq(comment.id, target.id));
    expect(row).toMatchObject({ blocked: true, blockReason: 'REPORTS', reportCount: 5 });
    expect((await postState(app, parent.id)).blocked).toBe(false);
  });

  test('five fresh accounts cannot hide a post: their reports are kept but do not count', async ({
    app,
    admin,
    other,
  }) => {
    const target = await insertPost(app, other.id);
    const fresh = await callers(app, 6, { ageDays: 6 });
    for (const reporter of fresh) expect((await reportPost(reporter, target.id)).status).toBe(204);
    expect(await postState(app, target.id)).toEqual({ blocked: false, blockReason: null, reportCount: 6 });

    // They are listed for the admin, but none counts.
    const listed = bodyOf(await admin.api.board.listReports({ query: {} }), 200).items.find(
      (item) => item.targetId === target.id && item.targetType === 'POST',
    );
    expect(listed).toMatchObject({ reportCount: 6, countedReportCount: 0, blocked: false });

    // Established accounts still block it at five of their own.
    const established = await callers(app, 5, { ageDays: 8 });
    for (const reporter of established.slice(0, 4)) await reportPost(reporter, target.id);
    expect((await postState(app, target.id)).blocked).toBe(false);
    await reportPost(established[4]!, target.id);
    expect(await postState(app, target.id)).toEqual({ blocked: true, blockReason: 'REPORTS', reportCount: 11 });
  });
});

describe('report rate limit', () => {
  test('the 11th report within an hour is 429 RATE_LIMITED with Retry-After', async ({ app, free, other }) => {
    const targets = await Promise.all(Array.from({ length: 11 }, () => insertPost(app, other.id)));
    for (const target of targets.slice(0, 10)) expect((await reportPost(free, target.id)).status).toBe(204);
    const limited = await reportPost(free, targets[10]!.id);
    problemOf(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(60);
    expect((await reportPost(other, (await insertPost(app, free.id)).id)).status).toBe(204);
  });
});
