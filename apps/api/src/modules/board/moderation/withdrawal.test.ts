import { moderationEvent, post, postVote, report } from '@nestegg/db';
import { eq, or } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { signUpAndLogIn } from '../../../test/auth-helpers.js';
import { bodyOf, contractClient } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';
import { ageAccount, callers, insertPost } from '../posts/board.fixture.js';

const reportPost = (caller: Caller, id: number, reason = 'Abusive') =>
  caller.api.board.reportPost({ params: { id }, body: { reason } });

const postRow = async (app: Parameters<typeof insertPost>[0], id: number) =>
  (await app.db.select().from(post).where(eq(post.id, id)))[0];

describe('withdrawal (spec rule 5, M11) with votes and report history', () => {
  test("a withdrawn member's votes and reports go, open counts follow, others' history stays", async ({
    app,
    admin,
    other,
  }) => {
    const signed = await signUpAndLogIn(app);
    await ageAccount(app, signed.member.id, 30);
    const leaving: Caller = {
      id: signed.member.id,
      email: signed.email,
      token: signed.token,
      headers: signed.headers,
      api: contractClient(app, { token: signed.token }),
    };
    const [stayer] = await callers(app, 1);
    const voted = await insertPost(app, other.id);
    const dismissedEarlier = await insertPost(app, other.id);
    const ownPost = await insertPost(app, leaving.id, { title: 'Mine' });

    bodyOf(await leaving.api.board.votePost({ params: { id: voted.id }, body: { direction: 'UP' } }), 200);
    expect((await reportPost(leaving, voted.id)).status).toBe(204);
    expect((await reportPost(leaving, dismissedEarlier.id)).status).toBe(204);
    await admin.api.board.dismissReports({ body: { targetType: 'POST', targetId: dismissedEarlier.id } });
    expect((await reportPost(stayer!, dismissedEarlier.id)).status).toBe(204);
    expect((await reportPost(stayer!, ownPost.id)).status).toBe(204);
    await admin.api.board.dismissReports({ body: { targetType: 'POST', targetId: ownPost.id } });

    expect((await leaving.api.auth.verifyPassword({ body: { password: signed.password } })).status).toBe(200);
    expect((await leaving.api.auth.deleteMe()).status).toBe(204);

    expect(await postRow(app, voted.id)).toMatchObject({ upCount: 0, reportCount: 0 });
    // The closed report did not count: the open one of someone else still does.
    expect(await postRow(app, dismissedEarlier.id)).toMatchObject({ reportCount: 1 });
    expect(await app.db.select().from(report).where(eq(report.memberId, leaving.id))).toHaveLength(0);
    expect(await app.db.select().from(postVote).where(eq(postVote.memberId, leaving.id))).toHaveLength(0);
    // Their post, the reports on it (copies of their content) and its events are gone.
    expect(await postRow(app, ownPost.id)).toBeUndefined();
    const aboutOwnPost = await app.db.select().from(moderationEvent).where(eq(moderationEvent.targetId, ownPost.id));
    expect(aboutOwnPost.filter((event) => event.targetType === 'POST')).toHaveLength(0);
    expect(
      (await app.db.select().from(report).where(eq(report.targetId, ownPost.id))).filter(
        (r) => r.targetType === 'POST',
      ),
    ).toHaveLength(0);

    const history = bodyOf(
      await admin.api.board.reportHistory({ query: { targetType: 'POST', targetId: dismissedEarlier.id } }),
      200,
    );
    expect(history.items.map((item) => item.reporter.id)).toEqual([stayer!.id]);
    expect(history.events).toMatchObject([{ action: 'DISMISSED', actor: { id: admin.id } }]);
  });

  test("an admin's dismissals stay in the history, anonymised, after the admin's account is deleted", async ({
    app,
    admin,
    other,
  }) => {
    const [moderator] = await callers(app, 1);
    await app.db.execute(`update member set role = 'ADMIN' where id = ${moderator!.id}`);
    const target = await insertPost(app, other.id, { blocked: true, blockReason: 'SPAM' });
    await app.services.moderation.dismiss(moderator!.id, 'POST', target.id);
    expect((await admin.api.admin.deleteMember({ params: { id: moderator!.id } })).status).toBe(204);
    const history = bodyOf(
      await admin.api.board.reportHistory({ query: { targetType: 'POST', targetId: target.id } }),
      200,
    );
    expect(history.events).toMatchObject([{ action: 'DISMISSED', actor: null }]);
    const events = await app.db
      .select()
      .from(moderationEvent)
      .where(or(eq(moderationEvent.actorId, moderator!.id)));
    expect(events).toHaveLength(0);
  });
});
