import { authSession, member } from '@nestegg/db';
import bcrypt from 'bcryptjs';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { signUpAndLogIn, uniqueEmail } from '../../../test/auth-helpers.js';
import { bodyOf, contractClient, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';

const signUpTest = apiTest();
const passwordTest = apiTest();

const from = (app: FastifyInstance, remoteAddress: string) => contractClient(app, { remoteAddress });

describe('local sign-up and login', () => {
  const test = signUpTest;

  test('signs up, stores an argon2id hash, and logs in with a bearer session', async ({ app, anonymous }) => {
    const email = uniqueEmail();
    const signup = await from(app, '10.1.0.1').auth.signup({
      body: { email: email.toUpperCase(), password: 'a long password', displayName: 'Ann' },
    });
    expect(bodyOf(signup, 201)).toEqual({ email, displayName: 'Ann' });
    const [row] = await app.db.select().from(member).where(eq(member.email, email));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row?.provider).toBe('LOCAL');

    const login = await anonymous.auth.login({ body: { email, password: 'a long password' } });
    const session = bodyOf(login, 200);
    expect(session.member).toMatchObject({ email, displayName: 'Ann', plan: 'FREE', points: 0, role: 'USER' });
    const profile = await contractClient(app, { token: session.token }).auth.getProfile();
    expect(profile.status).toBe(200);
  });

  test('refuses a second account with the same e-mail, whatever its case', async ({ app }) => {
    const email = uniqueEmail();
    const client = from(app, '10.1.0.2');
    const first = await client.auth.signup({ body: { email, password: 'violet kettle 1', displayName: 'A' } });
    expect(first.status).toBe(201);
    const second = await client.auth.signup({
      body: { email: email.toUpperCase(), password: 'violet kettle 2', displayName: 'B' },
    });
    problemOf(second, 409, 'EMAIL_TAKEN');
  });

  test('creates nothing when the honeypot is filled, and answers like a real sign-up', async ({ app }) => {
    const email = uniqueEmail('bot');
    const response = await from(app, '10.1.0.3').auth.signup({
      body: { email, password: 'violet kettle 1', displayName: 'Bot', website: 'http://spam.example' },
    });
    expect(bodyOf(response, 201)).toEqual({ email, displayName: 'Bot' });
    expect(await app.db.select().from(member).where(eq(member.email, email))).toHaveLength(0);
  });

  test('refuses sign-up while the admin switch has closed it, and tells clients', async ({ app, anonymous }) => {
    await app.services.settings.setSignupEnabled(false);
    try {
      expect((await anonymous.auth.signupEnabled()).body).toEqual({ enabled: false });
      const response = await from(app, '10.1.0.4').auth.signup({
        body: { email: uniqueEmail(), password: 'violet kettle 1', displayName: 'Late' },
      });
      problemOf(response, 403, 'SIGNUP_DISABLED');
    } finally {
      await app.services.settings.setSignupEnabled(true);
    }
    expect((await anonymous.auth.signupEnabled()).body).toEqual({ enabled: true });
  });

  test('verifies a carried-over bcrypt hash and rehashes it to argon2id on login', async ({ app, anonymous }) => {
    const email = uniqueEmail('legacy');
    await app.db
      .insert(member)
      .values({ email, displayName: 'Legacy', passwordHash: await bcrypt.hash('old secret 1', 10) });
    const response = await anonymous.auth.login({ body: { email, password: 'old secret 1' } });
    expect(response.status).toBe(200);
    const [row] = await app.db.select().from(member).where(eq(member.email, email));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    const again = await anonymous.auth.login({ body: { email, password: 'old secret 1' } });
    expect(again.status).toBe(200);
  });

  test('answers a wrong password and an unknown e-mail alike with 401', async ({ app }) => {
    const { email } = await signUpAndLogIn(app);
    const client = from(app, '10.1.0.5');
    const wrong = await client.auth.login({ body: { email, password: 'nope nope' } });
    const unknown = await client.auth.login({ body: { email: uniqueEmail('ghost'), password: 'nope nope' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(bodyOf(wrong, 401).detail).toBe(bodyOf(unknown, 401).detail);
  });

  test('refuses login to a suspended member', async ({ app, anonymous }) => {
    const { email, password, member: created } = await signUpAndLogIn(app);
    await app.db.update(member).set({ status: 'SUSPENDED' }).where(eq(member.id, created.id));
    problemOf(await anonymous.auth.login({ body: { email, password } }), 403, 'ACCOUNT_SUSPENDED');
  });

  test('keeps only a hash of the token, never the token itself', async ({ app }) => {
    const { token, member: created } = await signUpAndLogIn(app);
    const rows = await app.db.select().from(authSession).where(eq(authSession.memberId, created.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).not.toBe(token);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(await app.redis!.get(`session:${token}`)).toBeNull();
  });

  test('rejects malformed bodies with 400 listing the fields', async ({ app }) => {
    // Raw: the typed client cannot send a body the contract forbids.
    const response = await app.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: 'not-an-email', password: 'short' },
    });
    expect(response.statusCode).toBe(400);
    const paths = response.json().errors.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['body.email', 'body.password', 'body.displayName']));
  });
});

describe('password change and the password gate', () => {
  const test = passwordTest;

  test('changes the password with the current one, and revokes the other sessions', async ({ app, anonymous }) => {
    const first = await signUpAndLogIn(app, { password: 'first password' });
    const firstApi = contractClient(app, { token: first.token });
    const other = await anonymous.auth.login({ body: { email: first.email, password: 'first password' } });
    const otherApi = contractClient(app, { token: bodyOf(other, 200).token });

    const change = await firstApi.auth.changePassword({
      body: { currentPassword: 'first password', newPassword: 'second password' },
    });
    expect(change.status).toBe(204);
    expect((await firstApi.auth.getProfile()).status).toBe(200);
    expect((await otherApi.auth.getProfile()).status).toBe(401);
    const login = await anonymous.auth.login({ body: { email: first.email, password: 'second password' } });
    expect(login.status).toBe(200);
  });

  test('rejects a wrong current password and an unchanged password', async ({ app }) => {
    const { token } = await signUpAndLogIn(app, { password: 'same pass phrase 9' });
    const api = contractClient(app, { token });
    const wrong = await api.auth.changePassword({
      body: { currentPassword: 'not it at all', newPassword: 'another password' },
    });
    problemOf(wrong, 400, 'INVALID_CURRENT_PASSWORD');
    const same = await api.auth.changePassword({
      body: { currentPassword: 'same pass phrase 9', newPassword: 'same pass phrase 9' },
    });
    problemOf(same, 400, 'PASSWORD_UNCHANGED');
  });

  test('rejects a password change or gate for a social account', async ({ app }) => {
    const [social] = await app.db
      .insert(member)
      .values({ email: uniqueEmail('social'), displayName: 'Social', provider: 'IDPONE', idponeId: 'sub-social' })
      .returning();
    const { token } = (await app.services.sessions.open(social!.id, { rememberMe: false }))!;
    const api = contractClient(app, { token });
    const change = await api.auth.changePassword({
      body: { currentPassword: 'anything 1', newPassword: 'anything 2' },
    });
    problemOf(change, 400, 'SOCIAL_ACCOUNT');
    const gate = await api.auth.verifyPassword({ body: { password: 'x' } });
    expect((gate.body as { code?: string }).code).toBe('SOCIAL_ACCOUNT');
  });

  test('passes the gate with the right password', async ({ app }) => {
    const { token } = await signUpAndLogIn(app, { password: 'gate keeper phrase' });
    const response = await contractClient(app, { token }).auth.verifyPassword({
      body: { password: 'gate keeper phrase' },
    });
    const passed = bodyOf(response, 200);
    const until = new Date(passed.reauthenticatedUntil).getTime();
    expect(passed.verified).toBe(true);
    expect(Math.abs(until - (Date.now() + 5 * 60_000))).toBeLessThan(5000);
  });

  test('answers 429 after 5 gate failures in 10 minutes for one member, but not for another', async ({ app }) => {
    const victim = contractClient(app, {
      token: (await signUpAndLogIn(app, { password: 'gate keeper phrase' })).token,
    });
    const bystander = contractClient(app, {
      token: (await signUpAndLogIn(app, { password: 'gate keeper phrase' })).token,
    });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const failed = await victim.auth.verifyPassword({ body: { password: 'wrong' } });
      expect(failed.status).toBe(400);
    }
    const blocked = await victim.auth.verifyPassword({ body: { password: 'gate keeper phrase' } });
    problemOf(blocked, 429, 'RATE_LIMITED');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await bystander.auth.verifyPassword({ body: { password: 'gate keeper phrase' } });
    expect(other.status).toBe(200);
  });
});
