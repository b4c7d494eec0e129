import { authSession, member } from '@nestegg/db';
import bcrypt from 'bcryptjs';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { signUpAndLogIn, uniqueEmail } from '../../test/auth-helpers.js';

describe('local sign-up and login', () => {
  const app = useTestApp();

  it('signs up, stores an argon2id hash, and logs in with a bearer session', async () => {
    const email = uniqueEmail();
    const signup = await app.current.inject({
      method: 'POST',
      url: '/api/auth/signup',
      remoteAddress: '10.1.0.1',
      payload: { email: email.toUpperCase(), password: 'a long password', displayName: 'Ann' },
    });
    expect(signup.statusCode).toBe(201);
    expect(signup.json()).toEqual({ email, displayName: 'Ann' });
    const [row] = await app.current.db.select().from(member).where(eq(member.email, email));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row?.provider).toBe('LOCAL');

    const login = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: 'a long password' },
    });
    expect(login.statusCode).toBe(200);
    const session = login.json();
    expect(session.member).toMatchObject({ email, displayName: 'Ann', plan: 'FREE', points: 0, role: 'USER' });
    const profile = await app.current.inject({
      method: 'GET',
      url: '/api/auth/profile',
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(profile.statusCode).toBe(200);
  });

  it('refuses a second account with the same e-mail, whatever its case', async () => {
    const email = uniqueEmail();
    const first = await app.current.inject({
      method: 'POST',
      url: '/api/auth/signup',
      remoteAddress: '10.1.0.2',
      payload: { email, password: 'violet kettle 1', displayName: 'A' },
    });
    expect(first.statusCode).toBe(201);
    const second = await app.current.inject({
      method: 'POST',
      url: '/api/auth/signup',
      remoteAddress: '10.1.0.2',
      payload: { email: email.toUpperCase(), password: 'violet kettle 2', displayName: 'B' },
    });
    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe('EMAIL_TAKEN');
  });

  it('creates nothing when the honeypot is filled, and answers like a real sign-up', async () => {
    const email = uniqueEmail('bot');
    const response = await app.current.inject({
      method: 'POST',
      url: '/api/auth/signup',
      remoteAddress: '10.1.0.3',
      payload: { email, password: 'violet kettle 1', displayName: 'Bot', website: 'http://spam.example' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ email, displayName: 'Bot' });
    expect(await app.current.db.select().from(member).where(eq(member.email, email))).toHaveLength(0);
  });

  it('refuses sign-up while the admin switch has closed it, and tells clients', async () => {
    await app.current.services.settings.setSignupEnabled(false);
    try {
      const enabled = await app.current.inject({ method: 'GET', url: '/api/auth/signup-enabled' });
      expect(enabled.json()).toEqual({ enabled: false });
      const response = await app.current.inject({
        method: 'POST',
        url: '/api/auth/signup',
        remoteAddress: '10.1.0.4',
        payload: { email: uniqueEmail(), password: 'violet kettle 1', displayName: 'Late' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('SIGNUP_DISABLED');
    } finally {
      await app.current.services.settings.setSignupEnabled(true);
    }
    expect((await app.current.inject({ method: 'GET', url: '/api/auth/signup-enabled' })).json()).toEqual({
      enabled: true,
    });
  });

  it('verifies a carried-over bcrypt hash and rehashes it to argon2id on login', async () => {
    const email = uniqueEmail('legacy');
    await app.current.db
      .insert(member)
      .values({ email, displayName: 'Legacy', passwordHash: await bcrypt.hash('old secret 1', 10) });
    const response = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: 'old secret 1' },
    });
    expect(response.statusCode).toBe(200);
    const [row] = await app.current.db.select().from(member).where(eq(member.email, email));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    const again = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: 'old secret 1' },
    });
    expect(again.statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown e-mail alike with 401', async () => {
    const { email } = await signUpAndLogIn(app.current);
    const wrong = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.1.0.5',
      payload: { email, password: 'nope nope' },
    });
    const unknown = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.1.0.5',
      payload: { email: uniqueEmail('ghost'), password: 'nope nope' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().detail).toBe(unknown.json().detail);
  });

  it('refuses login to a suspended member', async () => {
    const { email, password, member: created } = await signUpAndLogIn(app.current);
    await app.current.db.update(member).set({ status: 'SUSPENDED' }).where(eq(member.id, created.id));
    const response = await app.current.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('ACCOUNT_SUSPENDED');
  });

  it('keeps only a hash of the token, never the token itself', async () => {
    const { token, member: created } = await signUpAndLogIn(app.current);
    const rows = await app.current.db.select().from(authSession).where(eq(authSession.memberId, created.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).not.toBe(token);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(await app.current.redis!.get(`session:${token}`)).toBeNull();
  });

  it('rejects malformed bodies with 400 listing the fields', async () => {
    const response = await app.current.inject({
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
  const app = useTestApp();

  it('changes the password with the current one, and revokes the other sessions', async () => {
    const first = await signUpAndLogIn(app.current, { password: 'first password' });
    const other = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: first.email, password: 'first password' },
    });
    const otherHeaders = { authorization: `Bearer ${other.json().token}` };

    const change = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers: first.headers,
      payload: { currentPassword: 'first password', newPassword: 'second password' },
    });
    expect(change.statusCode).toBe(204);
    expect(
      (await app.current.inject({ method: 'GET', url: '/api/auth/profile', headers: first.headers })).statusCode,
    ).toBe(200);
    expect(
      (await app.current.inject({ method: 'GET', url: '/api/auth/profile', headers: otherHeaders })).statusCode,
    ).toBe(401);
    const login = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: first.email, password: 'second password' },
    });
    expect(login.statusCode).toBe(200);
  });

  it('rejects a wrong current password and an unchanged password', async () => {
    const { headers } = await signUpAndLogIn(app.current, { password: 'same pass phrase 9' });
    const wrong = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers,
      payload: { currentPassword: 'not it at all', newPassword: 'another password' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('INVALID_CURRENT_PASSWORD');
    const same = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers,
      payload: { currentPassword: 'same pass phrase 9', newPassword: 'same pass phrase 9' },
    });
    expect(same.statusCode).toBe(400);
    expect(same.json().code).toBe('PASSWORD_UNCHANGED');
  });

  it('rejects a password change or gate for a social account', async () => {
    const [social] = await app.current.db
      .insert(member)
      .values({ email: uniqueEmail('social'), displayName: 'Social', provider: 'IDPONE', idponeId: 'sub-social' })
      .returning();
    const { token } = (await app.current.services.sessions.open(social!.id, { rememberMe: false }))!;
    const headers = { authorization: `Bearer ${token}` };
    const change = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers,
      payload: { currentPassword: 'anything 1', newPassword: 'anything 2' },
    });
    expect(change.statusCode).toBe(400);
    expect(change.json().code).toBe('SOCIAL_ACCOUNT');
    const gate = await app.current.inject({
      method: 'POST',
      url: '/api/auth/verify-password',
      headers,
      payload: { password: 'x' },
    });
    expect(gate.json().code).toBe('SOCIAL_ACCOUNT');
  });

  it('passes the gate with the right password', async () => {
    const { headers } = await signUpAndLogIn(app.current, { password: 'gate keeper phrase' });
    const response = await app.current.inject({
      method: 'POST',
      url: '/api/auth/verify-password',
      headers,
      payload: { password: 'gate keeper phrase' },
    });
    expect(response.statusCode).toBe(200);
    const until = new Date(response.json().reauthenticatedUntil).getTime();
    expect(response.json().verified).toBe(true);
    expect(Math.abs(until - (Date.now() + 5 * 60_000))).toBeLessThan(5000);
  });

  it('answers 429 after 5 gate failures in 10 minutes for one member, but not for another', async () => {
    const victim = await signUpAndLogIn(app.current, { password: 'gate keeper phrase' });
    const bystander = await signUpAndLogIn(app.current, { password: 'gate keeper phrase' });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const failed = await app.current.inject({
        method: 'POST',
        url: '/api/auth/verify-password',
        headers: victim.headers,
        payload: { password: 'wrong' },
      });
      expect(failed.statusCode).toBe(400);
    }
    const blocked = await app.current.inject({
      method: 'POST',
      url: '/api/auth/verify-password',
      headers: victim.headers,
      payload: { password: 'gate keeper phrase' },
    });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const other = await app.current.inject({
      method: 'POST',
      url: '/api/auth/verify-password',
      headers: bystander.headers,
      payload: { password: 'gate keeper phrase' },
    });
    expect(other.statusCode).toBe(200);
  });
});
