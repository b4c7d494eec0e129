import { authSession, member } from '@nestegg/db';
import { type OwnRedisServer, redisTopologies, startOwnRedisServer, useTestDatabase } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../app.js';
import { loadEnv } from '../../../env.js';
import { createMemberWithSession, testEnvironment } from '../../../test/app.js';
import { signUpAndLogIn } from '../../../test/auth-helpers.js';
import { bodyOf, contractClient } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { hashToken, sessionCacheKeys } from './session.store.js';

/** The typed client of one session on one instance (the two-instance tests build one per replica and token). */
const clientOf = (app: FastifyInstance, token: string) => contractClient(app, { token });
const profileStatus = async (app: FastifyInstance, token: string) =>
  (await clientOf(app, token).auth.getProfile()).status;
const memberListStatus = async (app: FastifyInstance, token: string) =>
  (await clientOf(app, token).admin.listMembers({ query: {} })).status;

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
    expect(await profileStatus(first, created.token)).toBe(200);
    expect(await profileStatus(second, created.token)).toBe(200);
    expect(await inspector.exists(sessionCacheKeys(hashToken(created.token)).session)).toBe(1);
    return created;
  }

  async function expectGoneEverywhere(token: string) {
    expect(await profileStatus(first, token)).toBe(401);
    expect(await profileStatus(second, token)).toBe(401);
    expect(
      await eventually(async () => (await inspector.exists(sessionCacheKeys(hashToken(token)).session)) === 0),
    ).toBe(true);
    expect(await profileStatus(second, token)).toBe(401);
  }

  it('logout', async () => {
    const { token } = await cachedSession();
    await duringOutage(async () => {
      expect((await clientOf(first, token).auth.logout()).status).toBe(204);
      expect(await profileStatus(first, token)).toBe(401);
    });
    await expectGoneEverywhere(token);
  });

  it('a suspension', async () => {
    const admin = await createMemberWithSession(first, { role: 'ADMIN' });
    const target = await cachedSession();
    await duringOutage(async () => {
      const suspended = await clientOf(first, admin.token).admin.setMemberStatus({
        params: { id: target.id },
        body: { status: 'SUSPENDED' },
      });
      expect(suspended.status).toBe(200);
    });
    await expectGoneEverywhere(target.token);
  });

  it("a password change's revocation of the other sessions", async () => {
    const owner = await signUpAndLogIn(first, { password: 'first pass phrase 7' });
    const other = await contractClient(first).auth.login({
      body: { email: owner.email, password: 'first pass phrase 7' },
    });
    const otherToken = bodyOf(other, 200).token;
    expect(await profileStatus(second, otherToken)).toBe(200);
    await duringOutage(async () => {
      const changed = await clientOf(first, owner.token).auth.changePassword({
        body: { currentPassword: 'first pass phrase 7', newPassword: 'second pass phrase 8' },
      });
      expect(changed.status).toBe(204);
    });
    await expectGoneEverywhere(otherToken);
    expect(await profileStatus(second, owner.token)).toBe(200);
  });

  it('a demotion from ADMIN', async () => {
    const admin = await createMemberWithSession(first, { role: 'ADMIN' });
    const target = await cachedSession({ role: 'ADMIN' });
    expect(await memberListStatus(second, target.token)).toBe(200);
    await duringOutage(async () => {
      const demoted = await clientOf(first, admin.token).admin.setMemberRole({
        params: { id: target.id },
        body: { role: 'USER' },
      });
      expect(demoted.status).toBe(200);
    });
    expect(await memberListStatus(first, target.token)).toBe(403);
    expect(await memberListStatus(second, target.token)).toBe(403);
    await eventually(async () => (await inspector.exists(sessionCacheKeys(hashToken(target.token)).session)) === 0);
    expect(await memberListStatus(second, target.token)).toBe(403);
  });

  it("an admin's delete", async () => {
    const admin = await createMemberWithSession(first, { role: 'ADMIN' });
    const target = await cachedSession();
    await duringOutage(async () => {
      const deleted = await clientOf(first, admin.token).admin.deleteMember({ params: { id: target.id } });
      expect(deleted.status).toBe(204);
    });
    await expectGoneEverywhere(target.token);
  });

  it('a withdrawal', async () => {
    const owner = await signUpAndLogIn(first, { password: 'leaving pass phrase 3' });
    expect(await profileStatus(second, owner.token)).toBe(200);
    const gate = await clientOf(first, owner.token).auth.verifyPassword({
      body: { password: 'leaving pass phrase 3' },
    });
    expect(gate.status).toBe(200);
    await duringOutage(async () => {
      expect((await clientOf(first, owner.token).auth.deleteMe()).status).toBe(204);
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
    expect(await profileStatus(app, token)).toBe(200);
    const tokenHash = hashToken(token);
    const [row] = await app.db.select().from(authSession).where(eq(authSession.tokenHash, tokenHash));
    const cachedFor = await app.redis!.pttl(sessionCacheKeys(tokenHash).session);
    expect(Math.abs(Date.now() + cachedFor - row!.expiresAt.getTime())).toBeLessThan(2000);

    // The row disappears behind the cache's back (as the clean-up would); once the slide check is due,
    // the cached copy dies with it instead of living on.
    await app.db.delete(authSession).where(eq(authSession.tokenHash, tokenHash));
    await app.redis!.del(sessionCacheKeys(tokenHash).slideMarker);
    expect(await profileStatus(app, token)).toBe(401);
    expect(await app.redis!.exists(sessionCacheKeys(tokenHash).session)).toBe(0);
  });
});

/** A login through the typed client, sent from `remoteAddress`. */
const loginFrom = (app: FastifyInstance, remoteAddress: string, email: string, password: string) =>
  contractClient(app, { remoteAddress }).auth.login({ body: { email, password } });
type LoginAnswer = Awaited<ReturnType<typeof loginFrom>>;

/** Logs in once from each address, so the per-account backoff knows them (only the race is under test). */
async function knownAddresses(app: FastifyInstance, email: string, password: string, count: number, prefix: string) {
  const addresses = Array.from({ length: count }, (_, index) => `${prefix}.${Math.floor(index / 250)}.${index % 250}`);
  for (const remoteAddress of addresses) {
    const answer = await loginFrom(app, remoteAddress, email, password);
    expect(answer.status).toBe(200);
  }
  return addresses;
}

const loginsFrom = (app: FastifyInstance, addresses: string[], email: string, password: string) =>
  addresses.map((remoteAddress) => loginFrom(app, remoteAddress, email, password));

function tokensOf(answers: LoginAnswer[]): string[] {
  return answers.flatMap((answer) => (answer.status === 200 ? [answer.body.token] : []));
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
      clientOf(app, admin.token).admin.setMemberStatus({
        params: { id: target.member.id },
        body: { status: 'SUSPENDED' },
      }),
      ...loginsFrom(app, addresses, target.email, target.password),
    ]);
    expect(suspension.status).toBe(200);
    expect(logins.every((answer) => [200, 403].includes(answer.status))).toBe(true);
    for (const token of tokensOf(logins)) expect(await profileStatus(app, token)).toBe(401);
    expect(await app.db.select().from(authSession).where(eq(authSession.memberId, target.member.id))).toEqual([]);
  });

  test('no session keeps admin rights after a demotion that races 75 logins', async ({ app }) => {
    const admin = await createMemberWithSession(app, { role: 'ADMIN' });
    const target = await signUpAndLogIn(app, { password: 'racing pass phrase 2' });
    await app.db.update(member).set({ role: 'ADMIN' }).where(eq(member.id, target.member.id));
    const addresses = await knownAddresses(app, target.email, target.password, 75, '10.22');
    const [demotion, ...logins] = await Promise.all([
      clientOf(app, admin.token).admin.setMemberRole({ params: { id: target.member.id }, body: { role: 'USER' } }),
      ...loginsFrom(app, addresses, target.email, target.password),
    ]);
    expect(demotion.status).toBe(200);
    const tokens = tokensOf(logins);
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(await memberListStatus(app, token)).toBe(403);
  });

  test('no login with the old password survives a password change that races 30 of them', async ({ app }) => {
    const owner = await signUpAndLogIn(app, { password: 'racing pass phrase 3' });
    const addresses = await knownAddresses(app, owner.email, owner.password, 30, '10.23');
    const [change, ...logins] = await Promise.all([
      clientOf(app, owner.token).auth.changePassword({
        body: { currentPassword: owner.password, newPassword: 'fresh pass phrase 4' },
      }),
      ...loginsFrom(app, addresses, owner.email, owner.password),
    ]);
    expect(change.status).toBe(204);
    for (const token of tokensOf(logins)) expect(await profileStatus(app, token)).toBe(401);
    expect(await profileStatus(app, owner.token)).toBe(200);
  });

  test('logins racing a member delete answer 200 or 401, never 500, and leave no session', async ({ app }) => {
    const admin = await createMemberWithSession(app, { role: 'ADMIN' });
    const target = await signUpAndLogIn(app, { password: 'racing pass phrase 5' });
    const addresses = await knownAddresses(app, target.email, target.password, 20, '10.24');
    const [deletion, ...logins] = await Promise.all([
      clientOf(app, admin.token).admin.deleteMember({ params: { id: target.member.id } }),
      ...loginsFrom(app, addresses, target.email, target.password),
    ]);
    expect(deletion.status).toBe(204);
    expect(logins.every((answer) => [200, 401].includes(answer.status))).toBe(true);
    for (const token of tokensOf(logins)) expect(await profileStatus(app, token)).toBe(401);
    expect(await app.db.select().from(authSession).where(eq(authSession.memberId, target.member.id))).toEqual([]);
  });

  test('of 20 parallel password changes exactly one takes effect', async ({ app }) => {
    const owner = await signUpAndLogIn(app, { password: 'racing pass phrase 6' });
    // One known address per check afterwards, so neither address nor account limits hide the answer.
    const addresses = await knownAddresses(app, owner.email, owner.password, 20, '10.25');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        clientOf(app, owner.token).auth.changePassword({
          body: { currentPassword: owner.password, newPassword: `winning pass phrase ${index}` },
        }),
      ),
    );
    const winners = answers.flatMap((answer, index) => (answer.status === 204 ? [index] : []));
    expect(winners).toHaveLength(1);
    // The losers: 409 (lost the compare-and-set), 400 (verified after the change), or 429 (in-flight attempts
    // count against the gate limit of 5).
    expect(answers.every((answer) => [204, 400, 409, 429].includes(answer.status))).toBe(true);
    for (const [index] of answers.entries()) {
      const attempt = await loginFrom(app, addresses[index]!, owner.email, `winning pass phrase ${index}`);
      expect(attempt.status, `password ${index}`).toBe(index === winners[0] ? 200 : 401);
    }
  });
});
