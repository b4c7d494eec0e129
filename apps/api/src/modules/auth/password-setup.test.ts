/**
 * Decisions M30 and M31: a LOCAL account whose password a provider sign-in removed (M22) gets it back through
 * `POST /api/auth/password` with a fresh token of the linked identity; the linking answer says so.
 */
import { randomUUID } from 'node:crypto';
import { authSession, member } from '@nestegg/db';
import { startFakeServer } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemberWithSession, useTestApp } from '../../test/app.js';
import { signUpAndLogIn, uniqueEmail } from '../../test/auth-helpers.js';

const ISSUER_ONE = 'https://idp-one.test';
const ISSUER_TWO = 'https://idp-two.test';
const CLIENT_ONE = 'client-one';
const CLIENT_TWO = 'client-two';

const keyOne = await generateKeyPair('RS256');
const keyTwo = await generateKeyPair('ES256');
/** Not published, same `kid` as keyOne: a forged signature. */
const impostorKey = await generateKeyPair('RS256');
type Key = Awaited<ReturnType<typeof generateKeyPair>>['publicKey'];
const jwk = async (key: Key, kid: string, alg: string) => ({ ...(await exportJWK(key)), kid, alg, use: 'sig' });
const jwksOne = { keys: [await jwk(keyOne.publicKey, 'one-1', 'RS256')] };
const jwksTwo = { keys: [await jwk(keyTwo.publicKey, 'two-1', 'ES256')] };

const provider = await startFakeServer({
  'GET /one/jwks': () => ({ body: jwksOne }),
  'GET /two/jwks': () => ({ body: jwksTwo }),
});
afterAll(() => provider.close());

const env = {
  IDPONE_CLIENT_ID: CLIENT_ONE,
  IDPONE_JWKS_URL: `${provider.url}/one/jwks`,
  IDPONE_ISSUERS: ISSUER_ONE,
  IDPTWO_CLIENT_ID: CLIENT_TWO,
  IDPTWO_JWKS_URL: `${provider.url}/two/jwks`,
  IDPTWO_ISSUER: ISSUER_TWO,
};

interface TokenOptions {
  subject: string;
  /** Seconds before now the token was issued (default 5). */
  issuedAgo?: number;
  /** Seconds before now the person signed in at the provider; absent: no `auth_time` claim. */
  authAgo?: number;
  forged?: boolean;
}

async function token(which: 'one' | 'two', claims: JWTPayload, options: TokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({
    ...claims,
    ...(options.authAgo === undefined ? {} : { auth_time: now - options.authAgo }),
  })
    .setProtectedHeader(which === 'one' ? { alg: 'RS256', kid: 'one-1' } : { alg: 'ES256', kid: 'two-1' })
    .setIssuer(which === 'one' ? ISSUER_ONE : ISSUER_TWO)
    .setAudience(which === 'one' ? CLIENT_ONE : CLIENT_TWO)
    .setSubject(options.subject)
    .setIssuedAt(now - (options.issuedAgo ?? 5))
    .setExpirationTime(now + 600);
  const key = options.forged ? impostorKey.privateKey : which === 'one' ? keyOne.privateKey : keyTwo.privateKey;
  return jwt.sign(key);
}

let ipSequence = 0;
const nextIp = () => {
  ipSequence += 1;
  return `10.31.${Math.floor(ipSequence / 250)}.${(ipSequence % 250) + 1}`;
};

const STRONG = 'new tortoise lantern harbour';

describe('password login after a provider sign-in turned it off', () => {
  const app = useTestApp(env);

  const signInOne = (idToken: string) =>
    app.current.inject({ method: 'POST', url: '/api/auth/idpone', payload: { idToken }, remoteAddress: nextIp() });
  const signInTwo = (identityToken: string) =>
    app.current.inject({
      method: 'POST',
      url: '/api/auth/idptwo',
      payload: { identityToken },
      remoteAddress: nextIp(),
    });
  const setPassword = (headers: Record<string, string>, body: Record<string, unknown>, remoteAddress = nextIp()) =>
    app.current.inject({ method: 'POST', url: '/api/auth/password', headers, payload: body, remoteAddress });
  const login = (email: string, password: string) =>
    app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
      remoteAddress: nextIp(),
    });
  const passwordHashOf = async (id: number) => {
    const [row] = await app.current.db
      .select({ passwordHash: member.passwordHash })
      .from(member)
      .where(eq(member.id, id));
    return row!.passwordHash;
  };
  const bearer = (sessionToken: string) => ({ authorization: `Bearer ${sessionToken}` });

  /** A sign-up (never proven), then the owner's provider one sign-in links into it and removes the password. */
  async function linkedAccount() {
    const email = uniqueEmail('relinked');
    const local = await signUpAndLogIn(app.current, { email, password: 'squatter pass phrase' });
    const subject = randomUUID();
    const linking = await signInOne(await token('one', { email, email_verified: true }, { subject }));
    expect(linking.statusCode, linking.body).toBe(200);
    return { email, subject, id: local.member.id, linking, headers: bearer(linking.json().token) };
  }

  it('says in the linking answer that password login was turned off, and where to turn it back on', async () => {
    const { linking, id } = await linkedAccount();
    expect(linking.json()).toMatchObject({ member: { id }, passwordLoginDisabled: true });
    expect(linking.json().passwordLoginHint).toContain('POST /api/auth/password');
    expect(await passwordHashOf(id)).toBeNull();
  });

  it('sends neither field on any other provider sign-in', async () => {
    const { email, subject } = await linkedAccount();
    const again = await signInOne(await token('one', { email, email_verified: true }, { subject }));
    expect(again.statusCode).toBe(200);
    expect(again.json()).not.toHaveProperty('passwordLoginDisabled');
    expect(again.json()).not.toHaveProperty('passwordLoginHint');

    const created = await signInOne(
      await token('one', { email: uniqueEmail('new'), email_verified: true }, { subject: randomUUID() }),
    );
    expect(created.json()).not.toHaveProperty('passwordLoginDisabled');

    // A proven account keeps its password when linked: nothing was turned off.
    const provenEmail = uniqueEmail('proven');
    const proven = await signUpAndLogIn(app.current, { email: provenEmail, password: 'proven pass phrase' });
    await app.current.db.update(member).set({ emailVerified: true }).where(eq(member.id, proven.member.id));
    const linkedProven = await signInOne(
      await token('one', { email: provenEmail, email_verified: true }, { subject: randomUUID() }),
    );
    expect(linkedProven.statusCode).toBe(200);
    expect(linkedProven.json()).not.toHaveProperty('passwordLoginDisabled');
  });

  it('points a password change to the set-password route instead of a dead end', async () => {
    const { headers } = await linkedAccount();
    const change = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers,
      payload: { currentPassword: 'squatter pass phrase', newPassword: STRONG },
    });
    expect(change.statusCode).toBe(400);
    expect(change.json().code).toBe('SOCIAL_ACCOUNT');
    expect(change.json().detail).toContain('POST /api/auth/password');
  });

  it('sets a password with a fresh token of the linked identity; password login works again, sessions stay', async () => {
    const { email, subject, id, headers } = await linkedAccount();
    // A second device of the owner, signed in with the provider after the link.
    const otherDevice = await signInOne(await token('one', { email, email_verified: true }, { subject }));
    const fresh = await token('one', {}, { subject, authAgo: 60 });

    const answer = await setPassword(headers, { provider: 'IDPONE', token: fresh, newPassword: STRONG });
    expect(answer.statusCode, answer.body).toBe(204);

    expect((await login(email, STRONG)).statusCode).toBe(200);
    expect((await login(email, 'squatter pass phrase')).statusCode).toBe(401);
    const profile = (h: Record<string, string>) =>
      app.current.inject({ method: 'GET', url: '/api/auth/profile', headers: h });
    expect((await profile(headers)).statusCode).toBe(200);
    expect((await profile(bearer(otherDevice.json().token))).statusCode).toBe(200);

    // From now on the password is changed, not set.
    const again = await setPassword(headers, {
      provider: 'IDPONE',
      token: await token('one', {}, { subject }),
      newPassword: 'another tortoise lantern',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('PASSWORD_ALREADY_SET');
    const change = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers,
      payload: { currentPassword: STRONG, newPassword: 'another tortoise lantern' },
    });
    expect(change.statusCode, change.body).toBe(204);
    expect(await passwordHashOf(id)).not.toBeNull();
  });

  it('keeps the new password when another provider links later (the e-mail is proven now)', async () => {
    const { email, subject, headers } = await linkedAccount();
    const set = await setPassword(headers, {
      provider: 'IDPONE',
      token: await token('one', {}, { subject }),
      newPassword: STRONG,
    });
    expect(set.statusCode).toBe(204);
    const two = await signInTwo(await token('two', { email, email_verified: 'true' }, { subject: randomUUID() }));
    expect(two.statusCode, two.body).toBe(200);
    expect(two.json()).not.toHaveProperty('passwordLoginDisabled');
    expect((await login(email, STRONG)).statusCode).toBe(200);
    expect((await app.current.inject({ method: 'GET', url: '/api/auth/profile', headers })).statusCode).toBe(200);
  });

  it('refuses a token that is not fresh: issued or signed in over 5 minutes ago, or issued in the future', async () => {
    const { subject, id, headers } = await linkedAccount();
    for (const stale of [{ issuedAgo: 6 * 60 }, { authAgo: 6 * 60 }, { issuedAgo: -5 * 60 }]) {
      const answer = await setPassword(headers, {
        provider: 'IDPONE',
        token: await token('one', {}, { subject, ...stale }),
        newPassword: STRONG,
      });
      expect(answer.statusCode, JSON.stringify(stale)).toBe(403);
      expect(answer.json().code).toBe('REAUTHENTICATION_REQUIRED');
    }
    expect(await passwordHashOf(id)).toBeNull();
  });

  it("refuses another identity's token, a provider not linked to the account, and a forged token", async () => {
    const { subject, id, headers } = await linkedAccount();
    const cases = [
      { body: { provider: 'IDPONE', token: await token('one', {}, { subject: randomUUID() }) }, expected: 403 },
      { body: { provider: 'IDPTWO', token: await token('two', {}, { subject }) }, expected: 403 },
      { body: { provider: 'IDPONE', token: await token('one', {}, { subject, forged: true }) }, expected: 401 },
    ];
    const answers = [];
    for (const { body, expected } of cases) {
      const answer = await setPassword(headers, { ...body, newPassword: STRONG });
      expect(answer.statusCode, answer.body).toBe(expected);
      answers.push(answer.json().code);
    }
    expect(answers).toEqual(['PROVIDER_MISMATCH', 'PROVIDER_MISMATCH', 'INVALID_ID_TOKEN']);
    expect(await passwordHashOf(id)).toBeNull();
  });

  it('checks the new password like sign-up', async () => {
    const { email, subject, id, headers } = await linkedAccount();
    const fresh = await token('one', {}, { subject });
    for (const newPassword of ['password1', email]) {
      const answer = await setPassword(headers, { provider: 'IDPONE', token: fresh, newPassword });
      expect(answer.statusCode).toBe(400);
      expect(answer.json().code).toBe('WEAK_PASSWORD');
    }
    expect(await passwordHashOf(id)).toBeNull();
  });

  it('answers 409 for an account that has a password and 400 for a provider account, before any token check', async () => {
    const withPassword = await signUpAndLogIn(app.current);
    const forged = await token('one', {}, { subject: randomUUID(), forged: true });
    const has = await setPassword(withPassword.headers, { provider: 'IDPONE', token: forged, newPassword: STRONG });
    expect(has.statusCode).toBe(409);
    expect(has.json().code).toBe('PASSWORD_ALREADY_SET');

    const subject = randomUUID();
    const social = await signInOne(
      await token('one', { email: uniqueEmail('social'), email_verified: true }, { subject }),
    );
    const answer = await setPassword(bearer(social.json().token), {
      provider: 'IDPONE',
      token: await token('one', {}, { subject }),
      newPassword: STRONG,
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().code).toBe('SOCIAL_ACCOUNT');
  });

  it('lets exactly one of two parallel requests set the password', async () => {
    const { email, subject, id, headers } = await linkedAccount();
    const passwords = ['first tortoise lantern harbour', 'second walrus compass meadow'];
    const answers = await Promise.all(
      passwords.map(async (newPassword) =>
        setPassword(headers, { provider: 'IDPONE', token: await token('one', {}, { subject }), newPassword }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect([...statuses].sort()).toEqual([204, 409]);
    expect(answers.find((answer) => answer.statusCode === 409)!.json().code).toBe('PASSWORD_ALREADY_SET');
    const winner = passwords[statuses.indexOf(204)]!;
    const loser = passwords[statuses.indexOf(409)]!;
    expect((await login(email, winner)).statusCode).toBe(200);
    expect((await login(email, loser)).statusCode).toBe(401);
    expect(await passwordHashOf(id)).not.toBeNull();
  });

  it('decides the race in the update itself, not in the check before it', async () => {
    const { subject, id } = await linkedAccount();
    const { credentials } = app.current.services;
    const proven = { provider: 'IDPONE' as const, subject };
    // Both calls skip the route's early check, as two requests that both passed it would.
    const outcomes = await Promise.allSettled(
      ['first tortoise lantern harbour', 'second walrus compass meadow'].map((password) =>
        credentials.setPassword(id, proven, password),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ status: 409, code: 'PASSWORD_ALREADY_SET' });
  });

  it('applies the same freshness rule to the re-authentication gate, with its own answer', async () => {
    const subject = randomUUID();
    const social = await signInOne(
      await token('one', { email: uniqueEmail('gate'), email_verified: true }, { subject }),
    );
    const gate = async (options: Partial<TokenOptions>) =>
      app.current.inject({
        method: 'POST',
        url: '/api/auth/reauthenticate',
        headers: bearer(social.json().token),
        payload: { provider: 'IDPONE', token: await token('one', {}, { subject, ...options }) },
        remoteAddress: nextIp(),
      });
    const stale = await gate({ authAgo: 6 * 60 });
    expect(stale.statusCode).toBe(400);
    expect(stale.json().code).toBe('VALIDATION_FAILED');
    expect((await gate({ authAgo: 30 })).statusCode).toBe(200);
  });

  it('leaves the sessions of the account alone', async () => {
    const { subject, id, headers } = await linkedAccount();
    const before = await app.current.db.select().from(authSession).where(eq(authSession.memberId, id));
    const set = await setPassword(headers, {
      provider: 'IDPONE',
      token: await token('one', {}, { subject }),
      newPassword: STRONG,
    });
    expect(set.statusCode).toBe(204);
    const after = await app.current.db.select().from(authSession).where(eq(authSession.memberId, id));
    expect(after.map((row) => row.id).sort()).toEqual(before.map((row) => row.id).sort());
  });
});

describe('set-password without the provider configured', () => {
  const app = useTestApp();

  it('answers 503 PROVIDER_NOT_CONFIGURED for a passwordless LOCAL account', async () => {
    const passwordless = await createMemberWithSession(app.current);
    const answer = await app.current.inject({
      method: 'POST',
      url: '/api/auth/password',
      headers: passwordless.headers,
      payload: { provider: 'IDPONE', token: 'a.b.c', newPassword: STRONG },
    });
    expect(answer.statusCode).toBe(503);
    expect(answer.json().code).toBe('PROVIDER_NOT_CONFIGURED');
  });
});
