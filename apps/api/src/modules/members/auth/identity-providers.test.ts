import { randomUUID } from 'node:crypto';
import { authSession, member } from '@nestegg/db';
import { startFakeServer } from '@nestegg/testing';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, describe, expect } from 'vitest';
import { signUpAndLogIn } from '../../../test/auth-helpers.js';
import { bodyOf, contractClient } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { REMEMBER_ME_TTL_SECONDS } from './session.store.js';

// ---------------------------------------------------------------------------
// The fake providers: started before any app is built (the apps fetch key sets from them).
// ---------------------------------------------------------------------------

const ISSUER_ONE = 'https://idp-one.test';
const ISSUER_ONE_ALT = 'idp-one.test';
const ISSUER_TWO = 'https://idp-two.test';
const CLIENT_ONE = 'client-one';
const CLIENT_TWO = 'client-two';

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
const keyOne = await generateKeyPair('RS256');
/** Not published: same `kid` as keyOne, so it stands for a forged signature. */
const impostorKey = await generateKeyPair('RS256');
const keyTwo = await generateKeyPair('ES256');

const publicJwk = async (key: Key, kid: string, alg: string) => ({ ...(await exportJWK(key)), kid, alg, use: 'sig' });
const jwksOne = { keys: [await publicJwk(keyOne.publicKey, 'one-1', 'RS256')] };
const jwksTwo = { keys: [await publicJwk(keyTwo.publicKey, 'two-1', 'ES256')] };

const provider = await startFakeServer({
  'GET /one/jwks': () => ({ body: jwksOne }),
  'GET /two/jwks': () => ({ body: jwksTwo }),
  'GET /down/jwks': () => ({ status: 500, body: { error: 'down' } }),
});
afterAll(() => provider.close());

const fullEnv = {
  IDPONE_CLIENT_ID: CLIENT_ONE,
  IDPONE_JWKS_URL: `${provider.url}/one/jwks`,
  IDPONE_ISSUERS: `${ISSUER_ONE}, ${ISSUER_ONE_ALT}`,
  IDPTWO_CLIENT_ID: CLIENT_TWO,
  IDPTWO_JWKS_URL: `${provider.url}/two/jwks`,
  IDPTWO_ISSUER: ISSUER_TWO,
};

interface TokenOptions {
  key?: Key;
  kid?: string;
  alg?: string;
  issuer?: string;
  audience?: string;
  /** Seconds from now; negative = already expired; null = no `exp` claim. */
  expiresIn?: number | null;
  subject?: string | null;
}

async function signToken(
  claims: JWTPayload,
  defaults: Required<Omit<TokenOptions, 'subject' | 'expiresIn'>>,
  options: TokenOptions,
) {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? defaults.alg, kid: options.kid ?? defaults.kid, typ: 'JWT' })
    .setIssuer(options.issuer ?? defaults.issuer)
    .setAudience(options.audience ?? defaults.audience)
    .setIssuedAt(now - 5);
  if (options.expiresIn !== null) jwt.setExpirationTime(now + (options.expiresIn ?? 600));
  if (options.subject !== null) jwt.setSubject(options.subject ?? randomUUID());
  return jwt.sign(options.key ?? defaults.key);
}

const tokenOne = (claims: JWTPayload, options: TokenOptions = {}) =>
  signToken(
    claims,
    { key: keyOne.privateKey, kid: 'one-1', alg: 'RS256', issuer: ISSUER_ONE, audience: CLIENT_ONE },
    options,
  );
const tokenTwo = (claims: JWTPayload, options: TokenOptions = {}) =>
  signToken(
    claims,
    { key: keyTwo.privateKey, kid: 'two-1', alg: 'ES256', issuer: ISSUER_TWO, audience: CLIENT_TWO },
    options,
  );

const uniqueEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.test`;

// Every call comes from its own address, so the per-IP failure limit only shows where a test asks for it.
let ipSequence = 0;
const nextIp = () => {
  ipSequence += 1;
  return `10.1.${Math.floor(ipSequence / 250)}.${(ipSequence % 250) + 1}`;
};

const codeOf = (answer: { body: unknown }) => (answer.body as { code?: string } | undefined)?.code;

function client(app: FastifyInstance) {
  return {
    one: (idToken: string, remoteAddress = nextIp()) =>
      contractClient(app, { remoteAddress }).auth.idpOneLogin({ body: { idToken } }),
    two: (identityToken: string, displayName?: string, remoteAddress = nextIp()) =>
      contractClient(app, { remoteAddress }).auth.idpTwoLogin({
        body: displayName === undefined ? { identityToken } : { identityToken, displayName },
      }),
    clientId: () => contractClient(app).auth.idpOneClientId(),
    memberRow: async (id: number) => {
      const [row] = await app.db.select().from(member).where(eq(member.id, id));
      return row!;
    },
    insertMember: async (values: Partial<typeof member.$inferInsert> & { email: string | null }) => {
      const [row] = await app.db
        .insert(member)
        .values({ displayName: 'Existing', emailVerified: true, ...values })
        .returning();
      return row!;
    },
    memberCount: async () => {
      const [row] = await app.db.select({ n: sql<number>`count(*)::int` }).from(member);
      return row!.n;
    },
  };
}

/** An api on `env`, with this file's provider client on it as the `api` fixture. */
const providerTest = (env: Record<string, string>) =>
  apiTest(env).extend<{ api: ReturnType<typeof client> }>({ api: async ({ app }, use) => use(client(app)) });

// ---------------------------------------------------------------------------

const signInTest = providerTest(fullEnv);

describe('sign-in with identity providers', () => {
  const test = signInTest;

  describe('provider one', () => {
    test('creates an IDPONE member with picture, name and verified e-mail, and opens a 30-day session', async ({
      app,
      api,
    }) => {
      const subject = randomUUID();
      const email = uniqueEmail('new');
      const response = await api.one(
        await tokenOne(
          { email: email.toUpperCase(), email_verified: true, name: 'New Person', picture: 'https://pics.test/a.png' },
          { subject },
        ),
      );
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const body = bodyOf(response, 200);
      expect(body.member).toMatchObject({
        email,
        displayName: 'New Person',
        provider: 'IDPONE',
        idpOnePicture: 'https://pics.test/a.png',
        status: 'ACTIVE',
      });
      const row = await api.memberRow(body.member.id);
      expect(row).toMatchObject({ idponeId: subject, idptwoId: null, emailVerified: true, email, passwordHash: null });

      const session = await app.services.sessions.resolve(body.token);
      expect(session).toMatchObject({ memberId: body.member.id, displayName: 'New Person', rememberMe: true });
      const lifetime = new Date(body.expiresAt).getTime() - Date.now();
      expect(lifetime).toBeGreaterThan((REMEMBER_ME_TTL_SECONDS - 60) * 1000);
    });

    test('finds the member by subject on a later sign-in, even when the e-mail claim changed', async ({ api }) => {
      const subject = randomUUID();
      const first = await api.one(
        await tokenOne({ email: uniqueEmail('sub'), email_verified: true, name: 'Sub' }, { subject }),
      );
      const before = await api.memberCount();
      const second = await api.one(
        await tokenOne({ email: uniqueEmail('changed'), email_verified: true, name: 'Renamed' }, { subject }),
      );
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      expect(bodyOf(second, 200).member.id).toBe(bodyOf(first, 200).member.id);
      // The account keeps its own name and e-mail: only the picture follows the provider.
      expect(bodyOf(second, 200).member).toMatchObject({ displayName: 'Sub', email: bodyOf(first, 200).member.email });
      expect(await api.memberCount()).toBe(before);
      expect(bodyOf(second, 200).token).not.toBe(bodyOf(first, 200).token);
    });

    test('synchronizes the picture when the claim changes and keeps it when the claim is absent', async ({ api }) => {
      const subject = randomUUID();
      const claims = { email: uniqueEmail('pic'), email_verified: true, name: 'Pic' };
      const first = await api.one(await tokenOne({ ...claims, picture: 'https://pics.test/old.png' }, { subject }));
      const id = bodyOf(first, 200).member.id;

      const changed = await api.one(await tokenOne({ ...claims, picture: 'https://pics.test/new.png' }, { subject }));
      expect(bodyOf(changed, 200).member.idpOnePicture).toBe('https://pics.test/new.png');
      expect((await api.memberRow(id)).idponePicture).toBe('https://pics.test/new.png');

      const absent = await api.one(await tokenOne(claims, { subject }));
      expect(bodyOf(absent, 200).member.idpOnePicture).toBe('https://pics.test/new.png');
    });

    test('ignores a picture claim that is not an http(s) URL', async ({ api }) => {
      const response = await api.one(
        await tokenOne({ email: uniqueEmail('js'), email_verified: true, picture: 'javascript:alert(1)' }),
      );
      expect(response.status).toBe(200);
      expect(bodyOf(response, 200).member.idpOnePicture).toBeNull();
    });

    test('links an existing LOCAL account by verified e-mail (any case), keeping provider LOCAL', async ({ api }) => {
      const email = uniqueEmail('local');
      const local = await api.insertMember({ email, displayName: 'Local Lee', passwordHash: 'x', provider: 'LOCAL' });
      const subject = randomUUID();
      const before = await api.memberCount();

      const response = await api.one(
        await tokenOne(
          {
            email: email.toUpperCase(),
            email_verified: 'true',
            name: 'Provider Name',
            picture: 'https://pics.test/l.png',
          },
          { subject },
        ),
      );
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(bodyOf(response, 200).member).toMatchObject({
        id: local.id,
        provider: 'LOCAL',
        displayName: 'Local Lee',
        idpOnePicture: 'https://pics.test/l.png',
      });
      expect(await api.memberRow(local.id)).toMatchObject({ idponeId: subject, provider: 'LOCAL', passwordHash: 'x' });
      expect(await api.memberCount()).toBe(before);

      // From now on the subject finds it.
      const again = await api.one(await tokenOne({ email: uniqueEmail('other'), email_verified: true }, { subject }));
      expect(bodyOf(again, 200).member.id).toBe(local.id);
    });

    test.for([
      ['false', false],
      ['the string "false"', 'false'],
      ['absent', undefined],
    ])('does not link to an existing account when email_verified is %s', async ([_label, verified], { api }) => {
      const email = uniqueEmail('unverified');
      const local = await api.insertMember({ email, provider: 'LOCAL' });
      const before = await api.memberCount();
      const claims: JWTPayload = { email, name: 'Intruder' };
      if (verified !== undefined) claims.email_verified = verified;

      const response = await api.one(await tokenOne(claims));
      expect(response.status).toBe(403);
      expect(codeOf(response)).toBe('EMAIL_NOT_VERIFIED');
      expect((await api.memberRow(local.id)).idponeId).toBeNull();
      expect(await api.memberCount()).toBe(before);
    });

    test('creates a member without an e-mail when an unverified e-mail belongs to nobody', async ({ api }) => {
      const email = uniqueEmail('nobody');
      const response = await api.one(await tokenOne({ email, email_verified: false }));
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const created = await api.memberRow(bodyOf(response, 200).member.id);
      expect(created).toMatchObject({ email: null, emailVerified: false, provider: 'IDPONE' });
      // The name still comes from the e-mail's local part.
      expect(created.displayName).toBe(email.split('@')[0]);
    });

    test('refuses to link an account already linked to another subject of the provider', async ({ api }) => {
      const email = uniqueEmail('taken');
      const local = await api.insertMember({ email, provider: 'LOCAL', idponeId: randomUUID() });
      const response = await api.one(await tokenOne({ email, email_verified: true }));
      expect(response.status).toBe(403);
      expect(codeOf(response)).toBe('ACCOUNT_LINKED_ELSEWHERE');
      expect((await api.memberRow(local.id)).idponeId).not.toBeNull();
    });

    test.for([
      [
        'the name claim, trimmed and cut to 30 characters',
        () => ({ name: `  ${'N'.repeat(40)}  `, email: uniqueEmail('long') }),
        () => 'N'.repeat(30),
      ],
      [
        'the e-mail local part without a name',
        () => ({ email: uniqueEmail('fallback') }),
        (email?: string) => email!.split('@')[0]!,
      ],
      ['"Member" without name and e-mail', () => ({}), () => 'Member'],
    ] as [string, () => { name?: string; email?: string }, (email?: string) => string][])(
      'takes the display name from %s',
      async ([_label, makeClaims, expected], { api }) => {
        const claims = makeClaims();
        const response = await api.one(await tokenOne({ ...claims, email_verified: true }));
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        expect(bodyOf(response, 200).member.displayName).toBe(expected(claims.email));
      },
    );

    test('never splits a character when cutting the name', async ({ api }) => {
      const response = await api.one(await tokenOne({ name: `${'a'.repeat(29)}😀` }));
      expect(bodyOf(response, 200).member.displayName).toBe('a'.repeat(29));
    });

    test('accepts every configured issuer', async ({ api }) => {
      const response = await api.one(await tokenOne({}, { issuer: ISSUER_ONE_ALT }));
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    });

    test('accepts a token that expired within the clock tolerance', async ({ api }) => {
      const response = await api.one(await tokenOne({}, { expiresIn: -10 }));
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    });

    test('creates one member when two first sign-ins of the same subject race', async ({ app, api }) => {
      const subject = randomUUID();
      const tokens = await Promise.all(
        Array.from({ length: 6 }, () => tokenOne({ email: 'race@example.test', email_verified: true }, { subject })),
      );
      const responses = await Promise.all(tokens.map((token) => api.one(token)));
      expect(responses.map((response) => response.status)).toEqual(tokens.map(() => 200));
      expect(new Set(responses.map((response) => bodyOf(response, 200).member.id)).size).toBe(1);
      const rows = await app.db.select().from(member).where(eq(member.idponeId, subject));
      expect(rows).toHaveLength(1);
    });

    test('returns the configured client id', async ({ api }) => {
      const response = await api.clientId();
      expect(response.status).toBe(200);
      expect(bodyOf(response, 200)).toEqual({ clientId: CLIENT_ONE });
    });
  });

  describe('provider two', () => {
    test('creates an IDPTWO member named from the body, with no picture', async ({ api }) => {
      const subject = randomUUID();
      const email = uniqueEmail('two');
      const claims = { email, email_verified: 'true', picture: 'https://pics.test/two.png' };
      const response = await api.two(await tokenTwo(claims, { subject }), 'Two Person');
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(bodyOf(response, 200).member).toMatchObject({
        displayName: 'Two Person',
        provider: 'IDPTWO',
        email,
        idpOnePicture: null,
      });
      expect(await api.memberRow(bodyOf(response, 200).member.id)).toMatchObject({
        idptwoId: subject,
        idponeId: null,
        emailVerified: true,
      });

      // Later sign-ins send no name (and a different one is ignored): the account keeps its name.
      const later = await api.two(await tokenTwo(claims, { subject }), 'Other Name');
      expect(bodyOf(later, 200).member).toMatchObject({
        id: bodyOf(response, 200).member.id,
        displayName: 'Two Person',
        idpOnePicture: null,
      });
    });

    test('falls back to the e-mail local part when the body has no name', async ({ api }) => {
      const email = uniqueEmail('twoname');
      const response = await api.two(await tokenTwo({ email, email_verified: true, name: 'Claim Name' }));
      expect(bodyOf(response, 200).member.displayName).toBe(email.split('@')[0]);
    });

    test('links by verified e-mail with idptwo_id, keeping the account provider', async ({ api }) => {
      const email = uniqueEmail('link2');
      const first = await api.one(await tokenOne({ email, email_verified: true, name: 'From One' }));
      const id = bodyOf(first, 200).member.id;
      const subject = randomUUID();

      const response = await api.two(await tokenTwo({ email, email_verified: 'true' }, { subject }), 'Ignored');
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(bodyOf(response, 200).member).toMatchObject({ id, provider: 'IDPONE', displayName: 'From One' });
      expect((await api.memberRow(id)).idptwoId).toBe(subject);
    });

    test('does not link with an unverified e-mail', async ({ api }) => {
      const email = uniqueEmail('unverified2');
      const local = await api.insertMember({ email, provider: 'LOCAL' });
      const response = await api.two(await tokenTwo({ email, email_verified: 'false' }));
      expect(response.status).toBe(403);
      expect(codeOf(response)).toBe('EMAIL_NOT_VERIFIED');
      expect((await api.memberRow(local.id)).idptwoId).toBeNull();
    });

    test('rejects a provider one token (other issuer, audience and keys)', async ({ api }) => {
      const response = await api.two(await tokenOne({}));
      expect(response.status).toBe(401);
      expect(codeOf(response)).toBe('INVALID_ID_TOKEN');
    });
  });

  describe('token rejections', () => {
    const cases: [string, (subject: string) => Promise<string>][] = [
      [
        'a forged signature (unpublished key, same kid)',
        (subject) => tokenOne({}, { subject, key: impostorKey.privateKey }),
      ],
      ['a wrong audience', (subject) => tokenOne({}, { subject, audience: 'someone-else' })],
      ['a wrong issuer', (subject) => tokenOne({}, { subject, issuer: 'https://evil.test' })],
      ['an expired token', (subject) => tokenOne({}, { subject, expiresIn: -120 })],
      ['a garbage token', async () => 'not-a-jwt'],
      ['a token without a subject', async () => tokenOne({}, { subject: null })],
      ['a token without an expiry', (subject) => tokenOne({}, { subject, expiresIn: null })],
      [
        'an unsigned token',
        async (subject) => {
          const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
          const now = Math.floor(Date.now() / 1000);
          return `${encode({ alg: 'none', kid: 'one-1' })}.${encode({ sub: subject, iss: ISSUER_ONE, aud: CLIENT_ONE, exp: now + 600 })}.`;
        },
      ],
    ];

    test.for(cases)('answers 401 INVALID_ID_TOKEN for %s and creates nothing', async ([_label, makeToken], { api }) => {
      const subject = randomUUID();
      const before = await api.memberCount();
      const response = await api.one(await makeToken(subject));
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(codeOf(response)).toBe('INVALID_ID_TOKEN');
      expect(await api.memberCount()).toBe(before);
    });

    test('answers 401 INVALID_ID_TOKEN for an expired provider two token', async ({ api }) => {
      const response = await api.two(await tokenTwo({}, { expiresIn: -120 }));
      expect(response.status).toBe(401);
      expect(codeOf(response)).toBe('INVALID_ID_TOKEN');
    });
  });

  describe('suspended members', () => {
    test('answers 403 ACCOUNT_SUSPENDED and opens no session', async ({ app, api }) => {
      const subject = randomUUID();
      const suspended = await api.insertMember({
        email: null,
        provider: 'IDPONE',
        idponeId: subject,
        status: 'SUSPENDED',
      });
      const response = await api.one(await tokenOne({}, { subject }));
      expect(response.status).toBe(403);
      expect(codeOf(response)).toBe('ACCOUNT_SUSPENDED');
      const sessions = await app.db.select().from(authSession).where(eq(authSession.memberId, suspended.id));
      expect(sessions).toHaveLength(0);
    });
  });

  describe('failure limit', () => {
    test('answers 429 after 10 rejected tokens from one IP within the window; other IPs pass', async ({ api }) => {
      const ip = '203.0.113.7';
      for (let attempt = 0; attempt < 10; attempt += 1) {
        expect((await api.one('garbage', ip)).status).toBe(401);
      }
      const blocked = await api.one(await tokenOne({}), ip);
      expect(blocked.status).toBe(429);
      expect(codeOf(blocked)).toBe('RATE_LIMITED');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await api.one(await tokenOne({}), '203.0.113.8')).status).toBe(200);
    });

    test('clears the count on a successful sign-in', async ({ api }) => {
      const ip = '203.0.113.9';
      for (let attempt = 0; attempt < 9; attempt += 1) await api.one('garbage', ip);
      expect((await api.two(await tokenTwo({}), undefined, ip)).status).toBe(200);
      for (let attempt = 0; attempt < 9; attempt += 1) await api.one('garbage', ip);
      expect((await api.one(await tokenOne({}), ip)).status).toBe(200);
    });
  });

  // Last in this block: counts every key set fetch the block caused.
  test('fetches each key set once across many sign-ins', async ({ api }) => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await api.one(await tokenOne({}))).status).toBe(200);
      expect((await api.two(await tokenTwo({}))).status).toBe(200);
    }
    const fetches = (path: string) => provider.requests.filter((request) => request.path === path).length;
    expect(fetches('/one/jwks')).toBe(1);
    expect(fetches('/two/jwks')).toBe(1);
  });
});

const unconfiguredTest = providerTest({});

describe('providers not configured', () => {
  // A half-configured provider does not start at all (see env.test.ts); none configured answers 503.
  const test = unconfiguredTest;

  test('answers 503 PROVIDER_NOT_CONFIGURED for provider one', async ({ api }) => {
    const response = await api.one(await tokenOne({}));
    expect(response.status).toBe(503);
    expect(codeOf(response)).toBe('PROVIDER_NOT_CONFIGURED');
  });

  test('answers 503 PROVIDER_NOT_CONFIGURED for provider two', async ({ api }) => {
    const response = await api.two(await tokenTwo({}));
    expect(response.status).toBe(503);
    expect(codeOf(response)).toBe('PROVIDER_NOT_CONFIGURED');
  });

  test('returns a null client id', async ({ api }) => {
    const response = await api.clientId();
    expect(response.status).toBe(200);
    expect(bodyOf(response, 200)).toEqual({ clientId: null });
  });
});

const unreachableTest = providerTest({ ...fullEnv, IDPONE_JWKS_URL: `${provider.url}/down/jwks` });

describe('provider key set unreachable', () => {
  const test = unreachableTest;

  test('answers 503 PROVIDER_UNAVAILABLE, not a token rejection', async ({ api }) => {
    const response = await api.one(await tokenOne({}));
    expect(response.status).toBe(503);
    expect(codeOf(response)).toBe('PROVIDER_UNAVAILABLE');
  });
});

const localFirstTest = providerTest(fullEnv);

describe('LOCAL accounts first when several accounts hold the e-mail', () => {
  const test = localFirstTest;

  test('links the LOCAL account, not an older provider account with the same e-mail', async ({ app, api }) => {
    // Only reachable without the case-insensitive unique index (e.g. data from before it existed).
    await app.db.execute(sql`drop index member_email_lower_uq`);
    const email = uniqueEmail('shared');
    const older = await api.insertMember({ email, provider: 'IDPTWO', idptwoId: randomUUID() });
    const local = await api.insertMember({ email: email.toUpperCase(), provider: 'LOCAL' });
    expect(older.id).toBeLessThan(local.id);

    const response = await api.one(await tokenOne({ email, email_verified: true }));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(bodyOf(response, 200).member.id).toBe(local.id);
    expect((await api.memberRow(older.id)).idponeId).toBeNull();
  });
});

const takeoverTest = providerTest(fullEnv);

describe('pre-registration takeover', () => {
  const test = takeoverTest;

  test("ends the squatter's password and sessions when the real owner signs in with a provider", async ({
    app,
    api,
  }) => {
    const victimEmail = uniqueEmail('victim');
    // The attacker registers the victim's address first (sign-up never proves the e-mail) and logs in.
    const squatter = await signUpAndLogIn(app, { email: victimEmail, password: 'squatter pass phrase' });
    const squatterProfile = () => contractClient(app, { token: squatter.token }).auth.getProfile();
    expect((await squatterProfile()).status).toBe(200);

    // The owner signs in with provider one, which vouches for the address: it links into that account.
    const owner = await api.one(await tokenOne({ email: victimEmail, email_verified: true, name: 'Owner' }));
    expect(owner.status).toBe(200);
    expect(bodyOf(owner, 200).member.id).toBe(squatter.member.id);

    expect((await squatterProfile()).status).toBe(401);
    const squatterLogin = await contractClient(app).auth.login({
      body: { email: victimEmail, password: 'squatter pass phrase' },
    });
    expect(squatterLogin.status).toBe(401);
    const row = await api.memberRow(squatter.member.id);
    expect(row).toMatchObject({ emailVerified: true, passwordHash: null });
    const ownerProfile = await contractClient(app, { token: bodyOf(owner, 200).token }).auth.getProfile();
    expect(ownerProfile.status).toBe(200);
  });

  test('keeps the password of an account whose e-mail was already proven', async ({ app, api }) => {
    const email = uniqueEmail('proven');
    const existing = await signUpAndLogIn(app, { email, password: 'proven pass phrase' });
    await app.db.update(member).set({ emailVerified: true }).where(eq(member.id, existing.member.id));
    expect((await api.one(await tokenOne({ email, email_verified: true }))).status).toBe(200);
    const login = await contractClient(app).auth.login({ body: { email, password: 'proven pass phrase' } });
    expect(login.status).toBe(200);
  });
});

const reauthTest = providerTest(fullEnv);

describe('re-authentication of provider accounts', () => {
  const test = reauthTest;

  async function providerMember(api: ReturnType<typeof client>, subject: string) {
    const signIn = await api.one(await tokenOne({ email: uniqueEmail('social'), email_verified: true }, { subject }));
    return { token: bodyOf(signIn, 200).token };
  }
  const reauthenticate = (app: FastifyInstance, sessionToken: string, token: string) =>
    contractClient(app, { token: sessionToken }).auth.reauthenticate({ body: { provider: 'IDPONE', token } });

  test('accepts a fresh token of the linked identity and then allows withdrawal', async ({ app, api }) => {
    const subject = randomUUID();
    const member = await providerMember(api, subject);
    const withdraw = () => contractClient(app, { token: member.token }).auth.deleteMe();
    expect(codeOf(await withdraw())).toBe('REAUTHENTICATION_REQUIRED');
    const passed = await reauthenticate(app, member.token, await tokenOne({}, { subject }));
    expect(passed.status).toBe(200);
    expect(bodyOf(passed, 200).verified).toBe(true);
    expect((await withdraw()).status).toBe(204);
  });

  test("refuses another identity's token with 403 PROVIDER_MISMATCH", async ({ app, api }) => {
    const member = await providerMember(api, randomUUID());
    const answer = await reauthenticate(app, member.token, await tokenOne({}, { subject: randomUUID() }));
    expect(answer.status).toBe(403);
    expect(codeOf(answer)).toBe('PROVIDER_MISMATCH');
  });
});
