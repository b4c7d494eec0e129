import { describe, expect } from 'vitest';
import { createMemberWithSession } from '../../../test/app.js';
import { signUpAndLogIn, uniqueEmail } from '../../../test/auth-helpers.js';
import { bodyOf, contractClient, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';

/** A clock the test moves: re-authentication windows are about time. */
const clock = { at: Date.now(), now: () => new Date(clock.at) };
const test = apiTest({}, { clock });

describe('withdrawal needs a recent re-authentication', () => {
  test('is refused with a bare token, allowed right after the gate, refused again after 5 minutes', async ({ app }) => {
    clock.at = Date.now();
    const member = await signUpAndLogIn(app, { password: 'leaving pass phrase 1' });
    const api = contractClient(app, { token: member.token });
    problemOf(await api.auth.deleteMe(), 403, 'REAUTHENTICATION_REQUIRED');

    bodyOf(await api.auth.verifyPassword({ body: { password: member.password } }), 200);
    clock.at += 5 * 60_000 + 1000;
    problemOf(await api.auth.deleteMe(), 403, 'REAUTHENTICATION_REQUIRED');

    bodyOf(await api.auth.verifyPassword({ body: { password: member.password } }), 200);
    clock.at += 4 * 60_000;
    bodyOf(await api.auth.deleteMe(), 204);
    problemOf(await api.auth.getProfile(), 401, 'UNAUTHENTICATED');
  });

  test("does not count another session's re-authentication", async ({ app }) => {
    clock.at = Date.now();
    const member = await signUpAndLogIn(app, { password: 'leaving pass phrase 2' });
    const second = await contractClient(app).auth.login({ body: { email: member.email, password: member.password } });
    const other = contractClient(app, { token: bodyOf(second, 200).token });
    bodyOf(await other.auth.verifyPassword({ body: { password: member.password } }), 200);
    problemOf(await contractClient(app, { token: member.token }).auth.deleteMe(), 403, 'REAUTHENTICATION_REQUIRED');
  });
});

describe("a member's sessions", () => {
  test('lists them with the current one marked, and ends one or all others', async ({ app }) => {
    clock.at = Date.now();
    const member = await signUpAndLogIn(app, { password: 'many devices phrase' });
    const logins = await Promise.all(
      ['phone', 'tablet', 'laptop'].map((device) =>
        contractClient(app).auth.login({
          body: { email: member.email, password: member.password },
          extraHeaders: { 'user-agent': `Nestegg/1.0 (${device})` },
        }),
      ),
    );
    const [phone, tablet, laptop] = logins.map((login) => contractClient(app, { token: bodyOf(login, 200).token }));
    const listed = bodyOf(await phone!.auth.listSessions(), 200).items;
    expect(listed).toHaveLength(4);
    expect(listed.filter((session) => session.current)).toHaveLength(1);
    expect(listed.find((session) => session.current)?.userAgent).toBe('Nestegg/1.0 (phone)');

    const tabletSession = listed.find((session) => session.userAgent === 'Nestegg/1.0 (tablet)')!;
    bodyOf(await phone!.auth.endSession({ params: { id: tabletSession.id } }), 204);
    problemOf(await tablet!.auth.getProfile(), 401, 'UNAUTHENTICATED');
    problemOf(await phone!.auth.endSession({ params: { id: tabletSession.id } }), 404, 'NOT_FOUND');

    expect(bodyOf(await phone!.auth.endOtherSessions(), 200)).toEqual({ ended: 2 });
    problemOf(await laptop!.auth.getProfile(), 401, 'UNAUTHENTICATED');
    problemOf(await contractClient(app, { token: member.token }).auth.getProfile(), 401, 'UNAUTHENTICATED');
    expect(bodyOf(await phone!.auth.listSessions(), 200).items.map((session) => session.current)).toEqual([true]);
  });

  test("cannot end another member's session", async ({ free, other }) => {
    const [mine] = bodyOf(await free.api.auth.listSessions(), 200).items;
    problemOf(await other.api.auth.endSession({ params: { id: mine!.id } }), 404, 'NOT_FOUND');
    bodyOf(await free.api.auth.getProfile(), 200);
  });
});

describe('passwords that are easy to guess', () => {
  test('are refused at sign-up and in a password change with 400 WEAK_PASSWORD', async ({ app, anonymous }) => {
    for (const password of ['password', 'password1', 'qwertyuiop', '12345678']) {
      problemOf(
        await anonymous.auth.signup({ body: { email: uniqueEmail(), password, displayName: 'Weak' } }),
        400,
        'WEAK_PASSWORD',
      );
    }
    const email = uniqueEmail('mine');
    problemOf(
      await anonymous.auth.signup({ body: { email, password: `${email.split('@')[0]}1`, displayName: 'Me' } }),
      400,
      'WEAK_PASSWORD',
    );
    const member = await signUpAndLogIn(app, { password: 'sturdy pass phrase 7' });
    problemOf(
      await contractClient(app, { token: member.token }).auth.changePassword({
        body: { currentPassword: member.password, newPassword: 'password123' },
      }),
      400,
      'WEAK_PASSWORD',
    );
  });
});

describe('answers that carry a token or personal data', () => {
  test('are never stored by caches', async ({ app, free }) => {
    const member = await signUpAndLogIn(app, { password: 'cache free phrase' });
    const login = await contractClient(app).auth.login({ body: { email: member.email, password: member.password } });
    expect(login.headers.get('cache-control')).toBe('no-store');
    const profile = await free.api.auth.getProfile();
    expect(profile.headers.get('cache-control')).toBe('no-store');
    expect(profile.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('the last active administrator', () => {
  test('two admins demoting each other at the same moment leave one admin', async ({ app }) => {
    // A file of its own would have no other admin; here, make these two the only active ones.
    const [first, second] = await Promise.all([
      createMemberWithSession(app, { role: 'ADMIN' }),
      createMemberWithSession(app, { role: 'ADMIN' }),
    ]);
    await app.db.execute(
      (await import('drizzle-orm'))
        .sql`update member set role = 'USER' where role = 'ADMIN' and id not in (${first.id}, ${second.id})`,
    );
    const demote = (by: typeof first, target: typeof first) =>
      contractClient(app, { token: by.token }).admin.setMemberRole({
        params: { id: target.id },
        body: { role: 'USER' },
      });
    const answers = await Promise.all([demote(first, second), demote(second, first)]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 409]);
    const loser = answers.find((answer) => answer.status === 409)!;
    expect((loser.body as { code: string }).code).toBe('LAST_ADMIN');
    const admins = await app.db.query.member.findMany({ where: (member, { eq }) => eq(member.role, 'ADMIN') });
    expect(admins).toHaveLength(1);
  });

  test('cannot be deleted by another admin racing the same, nor withdraw', async ({ app }) => {
    clock.at = Date.now();
    const [first, second] = await Promise.all([
      createMemberWithSession(app, { role: 'ADMIN' }),
      createMemberWithSession(app, { role: 'ADMIN' }),
    ]);
    await app.db.execute(
      (await import('drizzle-orm'))
        .sql`update member set role = 'USER' where role = 'ADMIN' and id not in (${first.id}, ${second.id})`,
    );
    const remove = (by: typeof first, target: typeof first) =>
      contractClient(app, { token: by.token }).admin.deleteMember({ params: { id: target.id } });
    const statuses = (await Promise.all([remove(first, second), remove(second, first)])).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 204)).toHaveLength(1);
    const survivor = statuses[0] === 204 ? first : second;
    expect(await app.db.query.member.findMany({ where: (member, { eq }) => eq(member.role, 'ADMIN') })).toHaveLength(1);

    await app.services.sessions.markReauthenticated((await import('./session.store.js')).hashToken(survivor.token));
    problemOf(await contractClient(app, { token: survivor.token }).auth.deleteMe(), 409, 'LAST_ADMIN');
  });
});
