/**
 * Decisions M30 and M31: a LOCAL account whose password a provider sign-in removed (M22) gets it back through
 * `POST /api/auth/password` with a fresh token of the linked identity; the linking answer says so.
 */
import { randomUUID } from 'node:crypto';
import { authSession, member } from '@nestegg/db';
import { startFakeServer } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, describe, expect } from 'vitest';
import { createMemberWithSession } from '../../../test/app.js';
import { signUpAndLogIn, uniqueEmail } from '../../../test/auth-helpers.js';
import { bodyOf, contractClient, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';

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

const providerTest = apiTest(env);

describe('password login after a provider sign-in turned it off', () => {
  const test = providerTest;

  /** A client from a new address each time: the sign-in and password limits count per address. */
  const client = (app: FastifyInstance, sessionToken?: string) =>
    contractClient(app, { remoteAddress: nextIp(), ...(sessionToken ? { token: sessionToken } : {}) });
  const signInOne = (app: FastifyInstance, idToken: string) => client(app).auth.idpOneLogin({ body: { idToken } });
  const signInTwo = (app: FastifyInstance, identityToken: string) =>
    client(app).auth.idpTwoLogin({ body: { identityToken } });
  type SetPasswordBody = { provider: 'IDPONE' | 'IDPTWO'; token: string; newPassword: string };
  const setPassword = (app: FastifyInstance, sessionToken: string, body: SetPasswordBody) =>
    client(app, sessionToken).auth.setPassword({ body });
  const login = (app: FastifyInstance, email: string, password: string) =>
    client(app).auth.login({ body: { email, password } });
  const profileStatus = async (app: FastifyInstance, sessionToken: string) =>
    (await contractClient(app, { token: sessionToken }).auth.getProfile()).status;
  const passwordHashOf = async (app: FastifyInstance, id: number) => {
    const [row] = await app.db.select({ passwordHash: member.passwordHash }).from(member).where(eq(member.id, id));
    return row!.passwordHash;
  };
  const sessionTokenOf = (answer: { status: number; body: unknown }) =>
    bodyOf(answer as { status: 200; body: { token: string } }, 200).token;
  const codeOf = (answer: { body: unknown }) => (answer.body as { code?: string } | undefined)?.code;

  /** A sign-up (never proven), then the owner's provider one sign-in links into it and removes the password. */
  async function linkedAccount(app: FastifyInstance) {
    const email = uniqueEmail('relinked');
    const local = await signUpAndLogIn(app, { email, password: 'squatter pass phrase' });
    const subject = randomUUID();
    const linking = await signInOne(app, await token('one', { email, email_verified: true }, { subject }));
    expect(linking.status, JSON.stringify(linking.body)).toBe(200);
    return { email, subject, id: local.member.id, linking, sessionToken: sessionTokenOf(linking) };
  }

  test('says in the linking answer that password login was turned off, and where to turn it back on', async ({
    app,
  }) => {
    const { linking, id } = await linkedAccount(app);
    expect(linking.body).toMatchObject({ member: { id }, passwordLoginDisabled: true });
    expect(bodyOf(linking, 200).passwordLoginHint).toContain('POST /api/auth/password');
    expect(await passwordHashOf(app, id)).toBeNull();
  });

  test('sends neither field on any other provider sign-in', async ({ app }) => {
    const { email, subject } = await linkedAccount(app);
    const again = await signInOne(app, await token('one', { email, email_verified: true }, { subject }));
    expect(again.status).toBe(200);
    expect(again.body).not.toHaveProperty('passwordLoginDisabled');
    expect(again.body).not.toHaveProperty('passwordLoginHint');

    const created = await signInOne(
      app,
      await token('one', { email: uniqueEmail('new'), email_verified: true }, { subject: randomUUID() }),
    );
    expect(created.body).not.toHaveProperty('passwordLoginDisabled');

    // A proven account keeps its password when linked: nothing was turned off.
    const provenEmail = uniqueEmail('proven');
    const proven = await signUpAndLogIn(app, { email: provenEmail, password: 'proven pass phrase' });
    await app.db.update(member).set({ emailVerified: true }).where(eq(member.id, proven.member.id));
    const linkedProven = await signInOne(
      app,
      await token('one', { email: provenEmail, email_verified: true }, { subject: randomUUID() }),
    );
    expect(linkedProven.status).toBe(200);
    expect(linkedProven.body).not.toHaveProperty('passwordLoginDisabled');
  });

  test('points a password change to the set-password route instead of a dead end', async ({ app }) => {
    const { sessionToken } = await linkedAccount(app);
    const change = await contractClient(app, { token: sessionToken }).auth.changePassword({
      body: { currentPassword: 'squatter pass phrase', newPassword: STRONG },
    });
    expect(problemOf(change, 400, 'SOCIAL_ACCOUNT').detail).toContain('POST /api/auth/password');
  });

  test('sets a password with a fresh token of the linked identity; password login works again, sessions stay', async ({
    app,
  }) => {
    const { email, subject, id, sessionToken } = await linkedAccount(app);
    // A second device of the owner, signed in with the provider after the link.
    const otherDevice = await signInOne(app, await token('one', { email, email_verified: true }, { subject }));
    const fresh = await token('one', {}, { subject, authAgo: 60 });

    const answer = await setPassword(app, sessionToken, { provider: 'IDPONE', token: fresh, newPassword: STRONG });
    expect(answer.status, JSON.stringify(answer.body)).toBe(204);

    expect((await login(app, email, STRONG)).status).toBe(200);
    expect((await login(app, email, 'squatter pass phrase')).status).toBe(401);
    expect(await profileStatus(app, sessionToken)).toBe(200);
    expect(await profileStatus(app, sessionTokenOf(otherDevice))).toBe(200);

    // From now on the password is changed, not set.
    const again = await setPassword(app, sessionToken, {
      provider: 'IDPONE',
      token: await token('one', {}, { subject }),
      newPassword: 'another tortoise lantern',
    });
    expect(again.status).toBe(409);
    expect(codeOf(again)).toBe('PASSWORD_ALREADY_SET');
    const change = await contractClient(app, { token: sessionToken }).auth.changePassword({
      body: { currentPassword: STRONG, newPassword: 'another tortoise lantern' },
    });
    expect(change.status, JSON.stringify(change.body)).toBe(204);
    expect(await passwordHashOf(app, id)).not.toBeNull();
  });

  test('keeps the new password when another provider links later (the e-mail is proven now)', async ({ app }) => {
    const { email, subject, sessionToken } = await linkedAccount(app);
    const set = await setPassword(app, sessionToken, {
      provider: 'IDPONE',
      token: await token('one', {}, { subject }),
      newPassword: STRONG,
    });
    expect(set.status).toBe(204);
    const two = await signInTwo(app, await token('two', { email, email_verified: 'true' }, { subject: randomUUID() }));
    expect(two.status, JSON.stringify(two.body)).toBe(200);
    expect(two.body).not.toHaveProperty('passwordLoginDisabled');
    expect((await login(app, email, STRONG)).status).toBe(200);
    expect(await profileStatus(app, sessionToken)).toBe(200);
  });

  test('refuses a token that is not fresh: issued or signed in over 5 minutes ago, or issued in the future', async ({
    app,
  }) => {
    const { subject, id, sessionToken } = await linkedAccount(app);
    for (const stale of [{ issuedAgo: 6 * 60 }, { authAgo: 6 * 60 }, { issuedAgo: -5 * 60 }]) {
      const answer = await setPassword(app, sessionToken, {
        provider: 'IDPONE',
        token: await token('one', {}, { subject, ...stale }),
        newPassword: STRONG,
      });
      expect(answer.status, JSON.stringify(stale)).toBe(403);
      expect(codeOf(answer)).toBe('REAUTHENTICATION_REQUIRED');
    }
    expect(await passwordHashOf(app, id)).toBeNull();
  });

  test("refuses another identity's token, a provider not linked to the account, and a forged token", async ({
    app,
  }) => {
    const { subject, id, sessionToken } = await linkedAccount(app);
    const cases = [
      { body: { provider: 'IDPONE', token: await token('one', {}, { subject: randomUUID() }) }, expected: 403 },
      { body: { provider: 'IDPTWO', token: await token('two', {}, { subject }) }, expected: 403 },
      { body: { provider: 'IDPONE', token: await token('one', {}, { subject, forged: true }) }, expected: 401 },
    ] as const;
    const answers = [];
    for (const { body, expected } of cases) {
      const answer = await setPassword(app, sessionToken, { ...body, newPassword: STRONG });
      expect(answer.status, JSON.stringify(answer.body)).toBe(expected);
      answers.push(codeOf(answer));
    }
    expect(answers).toEqual(['PROVIDER_MISMATCH', 'PROVIDER_MISMATCH', 'INVALID_ID_TOKEN']);
    expect(await passwordHashOf(app, id)).toBeNull();
  });

  test('checks the new password like sign-up', async ({ app }) => {
    const { email, subject, id, sessionToken } = await linkedAccount(app);
    const fresh = await token('one', {}, { subject });
    for (const newPassword of ['password1', email]) {
      const answer = await setPassword(app, sessionToken, { provider: 'IDPONE', token: fresh, newPassword });
      expect(answer.status).toBe(400);
      expect(codeOf(answer)).toBe('WEAK_PASSWORD');
    }
    expect(await passwordHashOf(app, id)).toBeNull();
  });

  test('answers 409 for an account that has a password and 400 for a provider account, before any token check', async ({
    app,
  }) => {
    const withPassword = await signUpAndLogIn(app);
    const forged = await token('one', {}, { subject: randomUUID(), forged: true });
    const has = await setPassword(app, withPassword.token, { provider: 'IDPONE', token: forged, newPassword: STRONG });
    expect(has.status).toBe(409);
    expect(codeOf(has)).toBe('PASSWORD_ALREADY_SET');

    const subject = randomUUID();
    const social = await signInOne(
      app,
      await token('one', { email: uniqueEmail('social'), email_verified: true }, { subject }),
    );
    const answer = await setPassword(app, sessionTokenOf(social), {
      provider: 'IDPONE',
      token: await token('one', {}, { subject }),
      newPassword: STRONG,
    });
    expect(answer.status).toBe(400);
    expect(codeOf(answer)).toBe('SOCIAL_ACCOUNT');
  });

  test('lets exactly one of two parallel requests set the password', async ({ app }) => {
    const { email, subject, id, sessionToken } = await linkedAccount(app);
    const passwords = ['first tortoise lantern harbour', 'second walrus compass meadow'];
    const answers = await Promise.all(
      passwords.map(async (newPassword) =>
        setPassword(app, sessionToken, { provider: 'IDPONE', token: await token('one', {}, { subject }), newPassword }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect([...statuses].sort()).toEqual([204, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.code).toBe('PASSWORD_ALREADY_SET');
    const winner = passwords[statuses.indexOf(204)]!;
    const loser = passwords[statuses.indexOf(409)]!;
    expect((await login(app, email, winner)).status).toBe(200);
    expect((await login(app, email, loser)).status).toBe(401);
    expect(await passwordHashOf(app, id)).not.toBeNull();
  });

  test('decides the race in the update itself, not in the check before it', async ({ app }) => {
    const { subject, id } = await linkedAccount(app);
    const { credentials } = app.services;
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

  test('applies the same freshness rule to the re-authentication gate, with its own answer', async ({ app }) => {
    const subject = randomUUID();
    const social = await signInOne(
      app,
      await token('one', { email: uniqueEmail('gate'), email_verified: true }, { subject }),
    );
    const gate = async (options: Partial<TokenOptions>) =>
      client(app, sessionTokenOf(social)).auth.reauthenticate({
        body: { provider: 'IDPONE', token: await token('one', {}, { subject, ...options }) },
      });
    const stale = await gate({ authAgo: 6 * 60 });
    expect(stale.status).toBe(400);
    expect(codeOf(stale)).toBe('VALIDATION_FAILED');
    expect((await gate({ authAgo: 30 })).status).toBe(200);
  });

  test('leaves the sessions of the account alone', async ({ app }) => {
    const { subject, id, sessionToken } = await linkedAccount(app);
    const before = await app.db.select().from(authSession).where(eq(authSession.memberId, id));
    const set = await setPassword(app, sessionToken, {
      provider: 'IDPONE',
      token: await token('one', {}, { subject }),
      newPassword: STRONG,
    });
    expect(set.status).toBe(204);
    const after = await app.db.select().from(authSession).where(eq(authSession.memberId, id));
    expect(after.map((row) => row.id).sort()).toEqual(before.map((row) => row.id).sort());
  });
});

const unconfiguredTest = apiTest();

describe('set-password without the provider configured', () => {
  const test = unconfiguredTest;

  test('answers 503 PROVIDER_NOT_CONFIGURED for a passwordless LOCAL account', async ({ app }) => {
    const passwordless = await createMemberWithSession(app);
    const answer = await contractClient(app, { token: passwordless.token }).auth.setPassword({
      body: { provider: 'IDPONE', token: 'a.b.c', newPassword: STRONG },
    });
    problemOf(answer, 503, 'PROVIDER_NOT_CONFIGURED');
  });
});
