import { comment, post } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { callers, insertComment, insertPost } from '../posts/board.fixture.js';

const reportPost = (caller: Caller, id: number, reason = 'Abusive') =>
  caller.api.board.reportPost({ params: { id }, body: { reason } });
const reportComment = (caller: Caller, id: number, reason = 'Abusive') =>
  caller.api.board.reportComment({ params: { id }, body: { reason } });

describe('GET /api/board/reports', () => {
  test('posts and comments together, most reported first, spam-blocked items at 0, paged', async ({
    app,
    admin,
    other,
    premium,
  }) => {
    const quiet = await insertPost(app, other.id, { title: 'Nothing wrong' });
    const reportedPost = await insertPost(app, other.id, { title: 'Reported post', category: 'tips' });
    const reportedComment = await insertComment(app, premium.id, quiet.id, { body: 'Rude comment' });
    const spam = await insertPost(app, premium.id, { title: 'Cheap pills', blocked: true, blockReason: 'SPAM' });
    const reporters = await callers(app, 4);
    for (const [index, reporter] of reporters.slice(0, 3).entries()) {
      expect((await reportPost(reporter, reportedPost.id, `reason ${index}`)).status).toBe(204);
    }
    for (const reporter of reporters) expect((await reportComment(reporter, reportedComment.id)).status).toBe(204);

    const list = bodyOf(await admin.api.board.listReports({ query: {} }), 200);
    expect(list.total).toBe(3);
    expect(list.items.map((item) => [item.targetType, item.targetId, item.reportCount])).toEqual([
      ['COMMENT', reportedComment.id, 4],
      ['POST', reportedPost.id, 3],
      ['POST', spam.id, 0],
    ]);
    expect(list.items[0]).toMatchObject({
      postId: quiet.id,
      postCategory: 'community',
      title: 'Nothing wrong',
      excerpt: 'Rude comment',
      author: { id: premium.id },
      countedReportCount: 4,
      blocked: false,
      blockReason: null,
    });
    expect(list.items[1]).toMatchObject({
      postCategory: 'tips',
      title: 'Reported post',
      author: { id: other.id },
      reasons: ['reason 2', 'reason 1', 'reason 0'],
    });
    expect(list.items[1]!.lastReportedAt).not.toBeNull();
    expect(list.items[2]).toMatchObject({ blocked: true, blockReason: 'SPAM', reasons: [], lastReportedAt: null });

    const second = bodyOf(await admin.api.board.listReports({ query: { page: 2, size: 2 } }), 200);
    expect(second).toMatchObject({ page: 2, size: 2, total: 3 });
    expect(second.items.map((item) => item.targetId)).toEqual([spam.id]);
    problemOf(await admin.api.board.listReports({ query: { page: 101, size: 100 } }), 400, 'OFFSET_TOO_DEEP');
    problemOf(
      await admin.api.board.reportHistory({ query: { targetType: 'POST', targetId: 1, page: 101, size: 100 } }),
      400,
      'OFFSET_TOO_DEEP',
    );
  });

  test('the excerpt is the first 200 characters of the body', async ({ app, admin, other }) => {
    const long = await insertPost(app, other.id, { body: 'x'.repeat(300), blocked: true, blockReason: 'SPAM' });
    const item = bodyOf(await admin.api.board.listReports({ query: { size: 100 } }), 200).items.find(
      (entry) => entry.targetId === long.id && entry.targetType === 'POST',
    );
    expect(item!.excerpt).toBe('x'.repeat(200));
  });
});

describe('POST /api/board/reports/dismiss', () => {
  test('clears and unblocks; the same accounts cannot re-block, new ones start from zero', async ({
    app,
    admin,
    other,
  }) => {
    const target = await insertPost(app, other.id);
    const first = await callers(app, 5);
    for (const reporter of first) await reportPost(reporter, target.id);
    expect((await app.db.select().from(post).where(eq(post.id, target.id)))[0]).toMatchObject({ blocked: true });

    const dismissed = await admin.api.board.dismissReports({ body: { targetType: 'POST', targetId: target.id } });
    expect(dismissed.status).toBe(204);
    expect((await app.db.select().from(post).where(eq(post.id, target.id)))[0]).toMatchObject({
      blocked: false,
      blockReason: null,
      reportCount: 0,
    });
    const listed = bodyOf(await admin.api.board.listReports({ query: { size: 100 } }), 200).items;
    expect(listed.some((item) => item.targetType === 'POST' && item.targetId === target.id)).toBe(false);

    for (const reporter of first) problemOf(await reportPost(reporter, target.id), 409, 'ALREADY_REPORTED');
    const second = await callers(app, 5);
    for (const reporter of second.slice(0, 4)) expect((await reportPost(reporter, target.id)).status).toBe(204);
    expect((await app.db.select().from(post).where(eq(post.id, target.id)))[0]).toMatchObject({
      blocked: false,
      reportCount: 4,
    });
    await reportPost(second[4]!, target.id);
    expect((await app.db.select().from(post).where(eq(post.id, target.id)))[0]).toMatchObject({ blocked: true });
  });

  test('unblocks a spam-blocked comment; a missing target is 404', async ({ app, admin, other }) => {
    const parent = await insertPost(app, other.id);
    const spam = await insertComment(app, other.id, parent.id, { blocked: true, blockReason: 'SPAM' });
    expect((await admin.api.board.dismissReports({ body: { targetType: 'COMMENT', targetId: spam.id } })).status).toBe(
      204,
    );
    expect((await app.db.select().from(comment).where(eq(comment.id, spam.id)))[0]).toMatchObject({
      blocked: false,
      blockReason: null,
    });
    problemOf(
      await admin.api.board.dismissReports({ body: { targetType: 'POST', targetId: 2_000_000_000 } }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('GET /api/board/reports/history', () => {
  test('keeps who reported, when, why and the content as reported, across an edit and a dismissal', async ({
    app,
    admin,
    free,
    other,
  }) => {
    const target = await insertPost(app, other.id, { title: 'Original title', body: 'Original body' });
    const fresh = (await callers(app, 1, { ageDays: 1 }))[0]!;
    await reportPost(free, target.id, 'Insulting');
    await app.db.update(post).set({ title: 'Edited title', body: 'Nothing to see' }).where(eq(post.id, target.id));
    await reportPost(fresh, target.id, 'Still bad');
    await admin.api.board.dismissReports({ body: { targetType: 'POST', targetId: target.id } });

    const history = bodyOf(
      await admin.api.board.reportHistory({ query: { targetType: 'POST', targetId: target.id } }),
      200,
    );
    expect(history.total).toBe(2);
    const dismissal = { action: 'DISMISSED', actor: { id: admin.id }, reason: null };
    expect(history.items).toMatchObject([
      {
        reporter: { id: fresh.id },
        reason: 'Still bad',
        counted: false,
        title: 'Edited title',
        body: 'Nothing to see',
        resolution: dismissal,
      },
      {
        reporter: { id: free.id },
        reason: 'Insulting',
        counted: false,
        title: 'Original title',
        body: 'Original body',
        resolution: dismissal,
      },
    ]);
    expect(history.events).toMatchObject([dismissal]);
  });

  test('records the automatic block and a comment snapshot', async ({ app, admin, other, premium }) => {
    const parent = await insertPost(app, premium.id);
    const target = await insertComment(app, other.id, parent.id, { body: 'Mean words' });
    for (const reporter of await callers(app, 5)) await reportComment(reporter, target.id);
    const history = bodyOf(
      await admin.api.board.reportHistory({ query: { targetType: 'COMMENT', targetId: target.id, size: 2 } }),
      200,
    );
    expect(history).toMatchObject({ total: 5, page: 1, size: 2 });
    expect(history.items).toHaveLength(2);
    expect(history.items[0]).toMatchObject({ title: null, body: 'Mean words', counted: true, resolution: null });
    expect(history.events).toMatchObject([{ action: 'BLOCKED', actor: null, reason: 'REPORTS' }]);
  });

  test('deleting reported content closes its reports and keeps them as evidence', async ({ app, admin, other }) => {
    const target = await insertPost(app, other.id, { title: 'Gone soon', body: 'Evidence' });
    const reply = await insertComment(app, other.id, target.id, { body: 'Reply evidence' });
    const [reporter] = await callers(app, 1);
    await reportPost(reporter!, target.id);
    await reportComment(reporter!, reply.id);
    // An admin deletes the post; its comment goes with it.
    expect((await admin.api.board.deletePost({ params: { id: target.id } })).status).toBe(204);
    for (const [targetType, targetId, body] of [
      ['POST', target.id, 'Evidence'],
      ['COMMENT', reply.id, 'Reply evidence'],
    ] as const) {
      const history = bodyOf(await admin.api.board.reportHistory({ query: { targetType, targetId } }), 200);
      expect(history.items).toMatchObject([
        { body, resolution: { action: 'CONTENT_DELETED', actor: { id: admin.id } } },
      ]);
      expect(history.events).toMatchObject([{ action: 'CONTENT_DELETED' }]);
    }
    const [{ open }] = (await app.db.execute(
      sql`select count(*)::int as open from report where resolution_id is null and member_id = ${reporter!.id}`,
    )) as unknown as [{ open: number }];
    expect(open).toBe(0);
  });

  test('an author deleting their reported comment closes its reports as theirs', async ({ app, other }) => {
    const target = await insertPost(app, other.id, { title: 'Thread' });
    const reply = await insertComment(app, other.id, target.id, { body: 'Regrettable' });
    const [reporter] = await callers(app, 1);
    await reportComment(reporter!, reply.id);
    expect((await other.api.board.deleteComment({ params: { id: reply.id } })).status).toBe(204);
    const [{ open }] = (await app.db.execute(
      sql`select count(*)::int as open from report
       where resolution_id is null and target_type = 'COMMENT' and target_id = ${reply.id}`,
    )) as unknown as [{ open: number }];
    expect(open).toBe(0);
    const [event] = (await app.db.execute(
      sql`select action, actor_id from moderation_event where target_type = 'COMMENT' and target_id = ${reply.id}`,
    )) as unknown as [{ action: string; actor_id: number }];
    expect(event).toEqual({ action: 'CONTENT_DELETED', actor_id: other.id });
  });
});
