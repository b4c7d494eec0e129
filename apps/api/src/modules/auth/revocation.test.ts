import { authSession, member } from '@nestegg/db';
import { type OwnRedisServer, redisTopologies, startOwnRedisServer, useTestDatabase } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { loadEnv } from '../../env.js';
import { createMemberWithSession, testEnvironment } from '../../test/app.js';
import { signUpAndLogIn } from '../../test/auth-helpers.js';
import { apiTest } from '../../test/fixtures.js';
import { hashToken, sessionCacheKeys } from './session.store.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const statusOf = async (app: FastifyInstance, url: string, token: string) =>
  (await app.inject({ method: 'GET', url, headers: bearer(token) })).statusCode;

async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('a change made while Redis is unreachable holds when it returns (two api instances)', () => {
  const database = useTestDatabase();
  let redis: OwnRedisServer;
  let inspector: Redis;
  let first: FastifyInstance;
  let second: FastifyInstance;

  beforeAll(async () => {
    redis = await startOwnRedisServer();
    inspector = new Redis(redis.url, { keyPrefix: 'nestegg:', lazyConnect: true });
    await inspector.connect();
    const env = loadEnv(
      testEnvironment({ databaseUrl: database.current.url, redisUrl: redis.url, redisKeyPrefix: 'nestegg:' }),
    );
    first = await buildApp(env);
    second = await buildApp(env);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    inspector?.disconnect();
    await redis?.stop();
  });

  /** The change runs on the first instance while Redis is frozen; both instances are checked after it returns. */
  async function duringOutage(change: () => Promise<void>) {
    redis.pause();
    try {
      await change();
    } finally {
      redis.resume();
    }
  }

  /** Logged in, the session cached in Redis and served from the cache by both instances. */
  async function cachedSession(options: { role?: 'ADMIN' } = {}) {
    const created = await createMemberWithSession(first, options);
    expect(await statusOf(first, '/api/auth/profile', created.token)).toBe(200);
    expect(await statusOf(second, '/api/auth/profile', created.token)).toBe(200);
    expect(await inspector.exists(sessionCacheKeys(hashToken(created.token)).session)).toBe(1);
    return created;
  }

  async function expectGoneEverywhere(token: string) {
    expect(await statusOf(first, '/api/auth/profile', token)).toBe(401);
    expect(await statusOf(second, '/api/auth/profile', token)).toBe(401);
    expect(
      await eventually(async () => (await inspector.exists(sessionCacheKeys(hashToken(token)).session)) === 0),
    ).toBe(true);
    expect(await statusOf(second, '/api/auth/profile', token)).toBe(401);
  }

  it('logout', async () => {
    const { token } = await cachedSession();
    await duringOutage(async () => {
      expect((await first.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(token) })).statusCode).toBe(
        204,
      );
      expect(await statusOf(first, '/api/auth/profile', token)).toBe(401);
    });
    await expectGoneEverywhere(token);
  });

  it('a suspension', async () => {
    const admin = await createMemberWithSession(first, { role: 'ADMIN' });
    const target = await cachedSession();
    await duringOutage(async () => {
      const suspended = await first.inject({
        method: 'PUT',
        url: `/api/admin/members/${target.id}/status`,
        headers: admin.headers,
        payload: { status: 'SUSPENDED' },
      });
      expect(suspended.statusCode).toBe(200);
    });
    await expectGoneEverywhere(target.token);
  });

  it("a password change's revocation of the other sessions", async () => {
    const owner = await signUpAndLogIn(first, { password: 'first pass phrase 7' });
    const other = await first.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: owner.email, password: 'first pass phrase 7' },
    });
    const otherToken = other.json().token as string;
    expect(await statusOf(second, '/api/auth/profile', otherToken)).toBe(200);
    await duringOutage(async () => {
      const changed = await first.inject({
        method: 'PUT',
        url: '/api/auth/password',
        headers: owner.headers,
        payload: { currentPassword: 'first pass phrase 7', newPassword: 'second pass phrase 8' },
      });
      expect(changed.statusCode).toBe(204);
    });
    await expectGoneEverywhere(otherToken);
    expect(await statusOf(second, '/api/auth/profile', owner.token)).toBe(200);
  });

  it('a demotion from ADMIN', async () => {
    const admin = await createMemberWithSession(first, { role: 'ADMIN' });
    const target = await cachedSession({ role: 'ADMIN' });
    expect(await statusOf(second, '/api/admin/members', target.token)).toBe(200);
    await duringOutage(async () => {
      const demoted = await first.inject({
        method: 'PUT',
        url: `/api/admin/members/${target.id}/role`,
        headers: admin.headers,
        payload: { role: 'USER' },
      });
      expect(demoted.statusCode).toBe(200);
    });
    expect(await statusOf(first, '/api/admin/members', target.token)).toBe(403);
    expect(await statusOf(second, '/api/admin/members', target.token)).toBe(403);
    await eventually(async () => (await inspector.exists(sessionCacheKeys(hashToken(target.token)).session)) === 0);
    expect(await statusOf(second, '/api/admin/members', target.token)).toBe(403);
  });

  it("an admin's delete", async () => {
    const admin = await createMemberWithSession(first, { role: 'ADMIN' });
    const target = await cachedSession();
    await duringOutage(async () => {
      const deleted = await first.inject({
        method: 'DELETE',
        url: `/api/admin/members/${target.id}`,
        headers: admin.headers,
      });
      expect(deleted.statusCode).toBe(204);
    });
    await expectGoneEverywhere(target.token);
  });

  it('a withdrawal', async () => {
    const owner = await signUpAndLogIn(first, { password: 'leaving pass phrase 3' });
    expect(await statusOf(second, '/api/auth/profile', owner.token)).toBe(200);
    const gate = await first.inject({
      method: 'POST',
      url: '/api/auth/verify-password',
      headers: owner.headers,
      payload: { password: 'leaving pass phrase 3' },
    });
    expect(gate.statusCode).toBe(200);
    await duringOutage(async () => {
      expect((await first.inject({ method: 'DELETE', url: '/api/auth/me', headers: owner.headers })).statusCode).toBe(
        204,
      );
    });
    await expectGoneEverywhere(owner.token);
  });
});

// vitest defines file-scoped fixtures at the top level only: one app per topology.
const onTopology = new Map(redisTopologies.map((topology) => [topology, apiTest({}, { redis: topology })]));

describe.each(redisTopologies)('a cached session never outlives its backup row (%s Redis)', (topology) => {
  const test = onTopology.get(topology)!;

  test('expires in Redis exactly when its backup row does, and ends when the row is gone', async ({ app }) => {
    const { token } = await createMemberWithSession(app);
    expect(await statusOf(app, '/api/auth/profile', token)).toBe(200);
    const tokenHash = hashToken(token);
    const [row] = await app.db.select().from(authSession).where(eq(authSession.tokenHash, tokenHash));
    const cachedFor = await app.redis!.pttl(sessionCacheKeys(tokenHash).session);
    expect(Math.abs(Date.now() + cachedFor - row!.expiresAt.getTime())).toBeLessThan(2000);

    // The row disappears behind the cache's back (as the clean-up would); once the slide check is due,
    // the cached copy dies with it instead of living on.
    await app.db.delete(authSession).where(eq(authSession.tokenHash, tokenHash));
    await app.redis!.del(sessionCacheKeys(tokenHash).slideMarker);
    expect(await statusOf(app, '/api/auth/profile', token)).toBe(401);
    expect(await app.redis!.exists(sessionCacheKeys(tokenHash).session)).toBe(0);
  });
});

/** Logs in once from each address, so the per-account backoff knows them (only the race is under test). */
async function knownAddresses(app: FastifyInstance, email: string, password: string, count: number, prefix: string) {
  const addresses = Array.from({ length: count }, (_, index) => `${prefix}.${Math.floor(index / 250)}.${index % 250}`);
  for (const remoteAddress of addresses) {
    const answer = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress,
      payload: { email, password },
    });
    expect(answer.statusCode).toBe(200);
  }
  return addresses;
}

const loginsFrom = (app: FastifyInstance, addresses: string[], email: string, password: string) =>
  addresses.map((remoteAddress) =>
    app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { email, password } }),
  );

function tokensOf(answers: { statusCode: number; json(): { token?: string } }[]): string[] {
  return answers.filter((answer) => answer.statusCode === 200).map((answer) => answer.json().token!);
}

// The races are under test, not load shedding: a busy test machine must not shed the change itself.
const racesTest = apiTest({ PASSWORD_HASH_MAX_QUEUED: '1000', PASSWORD_HASH_MAX_WAIT_MS: '60000' });

describe('logins racing a change see the member as of their own commit', () => {
  const test = racesTest;

  test('no session survives a suspension that races 20 logins', async ({ app }) => {
    const admin = await createMemberWithSession(app, { role: 'ADMIN' });
    const target = await signUpAndLogIn(app, { password: 'racing pass phrase 1' });
    const addresses = await knownAddresses(app, target.email, target.password, 20, '10.21');
    const [suspension, ...logins] = await Promise.all([
      app.inject({
        method: 'PUT',
        url: `/api/admin/members/${target.member.id}/status`,
        headers: admin.headers,
        payload: { status: 'SUSPENDED' },
      }),
      ...loginsFrom(app, addresses, target.email, target.password),
    ]);
    expect(suspension.statusCode).toBe(200);
    expect(logins.every((answer) => [200, 403].includes(answer.statusCode))).toBe(true);
    for (const token of tokensOf(logins)) expect(await statusOf(app, '/api/auth/profile', token)).toBe(401);
    expect(await app.db.select().from(authSession).where(eq(authSession.memberId, target.member.id))).toEqual([]);
  });

  test('no session keeps admin rights after a demotion that races 75 logins', async ({ app }) => {
    const admin = await createMemberWithSession(app, { role: 'ADMIN' });
    const target = await signUpAndLogIn(app, { password: 'racing pass phrase 2' });
    await app.db.update(member).set({ role: 'ADMIN' }).where(eq(member.id, target.member.id));
    const addresses = await knownAddresses(app, target.email, target.password, 75, '10.22');
    const [demotion, ...logins] = await Promise.all([
      app.inject({
        method: 'PUT',
        url: `/api/admin/members/${target.member.id}/role`,
        headers: admin.headers,
        payload: { role: 'USER' },
      }),
      ...loginsFrom(app, addresses, target.email, target.password),
    ]);
    expect(demotion.statusCode).toBe(200);
    const tokens = tokensOf(logins);
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(await statusOf(app, '/api/admin/members', token)).toBe(403);
  });

  test('no login with the old password survives a password change that races 30 of them', async ({ app }) => {
    const owner = await signUpAndLogIn(app, { password: 'racing pass phrase 3' });
    const addresses = await knownAddresses(app, owner.email, owner.password, 30, '10.23');
    const [change, ...logins] = await Promise.all([
      app.inject({
        method: 'PUT',
        url: '/api/auth/password',
        headers: owner.headers,
        payload: { currentPassword: owner.password, newPassword: 'fresh pass phrase 4' },
      }),
      ...loginsFrom(app, addresses, owner.email, owner.password),
    ]);
    expect(change.statusCode).toBe(204);
    for (const token of tokensOf(logins)) expect(await statusOf(app, '/api/auth/profile', token)).toBe(401);
    expect(await statusOf(app, '/api/auth/profile', owner.token)).toBe(200);
  });

  test('logins racing a member delete answer 200 or 401, never 500, and leave no session', async ({ app }) => {
    const admin = await createMemberWithSession(app, { role: 'ADMIN' });
    const target = await signUpAndLogIn(app, { password: 'racing pass phrase 5' });
    const addresses = await knownAddresses(app, target.email, target.password, 20, '10.24');
    const [deletion, ...logins] = await Promise.all([
      app.inject({ method: 'DELETE', url: `/api/admin/members/${target.member.id}`, headers: admin.headers }),
      ...loginsFrom(app, addresses, target.email, target.password),
    ]);
    expect(deletion.statusCode).toBe(204);
    expect(logins.every((answer) => [200, 401].includes(answer.statusCode))).toBe(true);
    for (const token of tokensOf(logins)) expect(await statusOf(app, '/api/auth/profile', token)).toBe(401);
    expect(await app.db.select().from(authSession).where(eq(authSession.memberId, target.member.id))).toEqual([]);
  });

  test('of 20 parallel password changes exactly one takes effect', async ({ app }) => {
    const owner = await signUpAndLogIn(app, { password: 'racing pass phrase 6' });
    // One known address per check afterwards, so neither address nor account limits hide the answer.
    const addresses = await knownAddresses(app, owner.email, owner.password, 20, '10.25');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        app.inject({
          method: 'PUT',
          url: '/api/auth/password',
          headers: owner.headers,
          payload: { currentPassword: owner.password, newPassword: `winning pass phrase ${index}` },
        }),
      ),
    );
    const winners = answers.flatMap((answer, index) => (answer.statusCode === 204 ? [index] : []));
    expect(winners).toHaveLength(1);
    // The losers: 409 (lost the compare-and-set), 400 (verified after the change), or 429 (in-flight attempts
    // count against the gate limit of 5).
    expect(answers.every((answer) => [204, 400, 409, 429].includes(answer.statusCode))).toBe(true);
    for (const [index] of answers.entries()) {
      const attempt = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: addresses[index]!,
        payload: { email: owner.email, password: `winning pass phrase ${index}` },
      });
      expect(attempt.statusCode, `password ${index}`).toBe(index === winners[0] ? 200 : 401);
    }
  });
});
