import { redisTopologies, watchCrossSlot } from '@nestegg/testing';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, describe, expect } from 'vitest';
import { RedisAttemptStore } from './lib/attempt-store.js';
import { ReceiptQuota } from './modules/ledger/receipts/receipt-quota.js';
import { hashToken, sessionCacheKeys } from './modules/members/auth/session.store.js';
import { createMemberWithSession } from './test/app.js';
import { signUpAndLogIn, uniqueEmail } from './test/auth-helpers.js';
import { apiTest } from './test/fixtures.js';

const login = (app: FastifyInstance, email: string, password: string, remoteAddress: string) =>
  app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { email, password } });
const profile = (app: FastifyInstance, token: string) =>
  app.inject({ method: 'GET', url: '/api/auth/profile', headers: { authorization: `Bearer ${token}` } });

/**
 * Decisions R1, R2, R4: the Redis paths (session cache, revocation, rate limit, login limits and backoff,
 * receipt quota) hold on one Redis and on a 3-primary Redis Cluster, and no command the services send
 * touches keys of more than one slot (a cluster refuses those with CROSSSLOT; the services would swallow
 * the error and fall back, so only this check sees it).
 */
// vitest defines file-scoped fixtures at the top level only: one app per topology.
const onTopology = new Map(redisTopologies.map((topology) => [topology, apiTest({}, { redis: topology })]));

describe.each(redisTopologies)('on %s Redis', (topology) => {
  const test = onTopology.get(topology)!;
  let watch: ReturnType<typeof watchCrossSlot>;
  test.beforeAll(({ app }) => {
    watch = watchCrossSlot(app.redis!);
  });
  afterAll(() => watch?.stop());

  test('caches a session at login, serves it from the cache, and drops it at logout', async ({ app }) => {
    const { token } = await signUpAndLogIn(app);
    const keys = sessionCacheKeys(hashToken(token));
    expect(await app.redis!.exists(keys.session)).toBe(1);
    expect((await profile(app, token)).statusCode).toBe(200);
    const logout = await app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(logout.statusCode).toBe(204);
    expect(await app.redis!.exists(keys.session)).toBe(0);
    expect(await app.redis!.get(keys.generation)).toBe('1');
    expect((await profile(app, token)).statusCode).toBe(401);
  });

  test('carries a plan change into every cached session of the member (revocation path)', async ({ app }) => {
    const created = await createMemberWithSession(app);
    const second = await app.services.sessions.open(created.id, { rememberMe: true });
    expect((await app.services.sessions.resolve(created.token))?.plan).toBe('FREE');
    expect((await app.services.sessions.resolve(second!.token))?.plan).toBe('FREE');
    await app.services.sessions.updateMember(created.id, { plan: 'PREMIUM' });
    expect((await app.services.sessions.resolve(created.token))?.plan).toBe('PREMIUM');
    expect((await app.services.sessions.resolve(second!.token))?.plan).toBe('PREMIUM');
    await app.services.sessions.destroyAllOf(created.id);
    expect(await app.services.sessions.resolve(created.token)).toBeNull();
    expect(await app.services.sessions.resolve(second!.token)).toBeNull();
  });

  test('limits login failures per address, and backs off per account', async ({ app, testRedis }) => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await login(app, uniqueEmail('stranger'), 'wrong', '10.61.0.1')).statusCode).toBe(401);
    }
    expect((await login(app, uniqueEmail('stranger'), 'wrong', '10.61.0.1')).statusCode).toBe(429);

    const { email, password } = await signUpAndLogIn(app, { ip: '10.61.1.1' });
    // Five failures are free, then the account is locked for 30 s against unknown addresses...
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await login(app, email, 'wrong', `10.61.2.${attempt}`)).statusCode).toBe(401);
    }
    expect((await login(app, email, password, '10.61.3.1')).statusCode).toBe(429);
    // ...but not against the address the member logged in from.
    expect((await login(app, email, password, '10.61.1.1')).statusCode).toBe(200);
    const keys = (await testRedis.keys()).map((key) => key.slice(testRedis.keyPrefix.length));
    expect(keys).toContain(`attempts:{login-account:${email}}:known`);
  });

  test('limits sign-ups per address with the rate-limit store', async ({ app }) => {
    const signup = () =>
      app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        remoteAddress: '10.62.0.1',
        payload: { email: uniqueEmail(), password: 'violet kettle 1', displayName: 'New' },
      });
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await signup()).statusCode).toBe(201);
    expect((await signup()).statusCode).toBe(429);
  });

  test('counts the receipt quota per member and day', async ({ app }) => {
    const quota = new ReceiptQuota({
      attempts: new RedisAttemptStore(app.redis!),
      clock: { now: () => new Date('2026-05-01T03:00:00Z') },
      logger: pino({ level: 'silent' }),
      timeZone: 'Asia/Seoul',
      perDay: 2,
    });
    const memberId = 9_000_000 + Math.floor(Math.random() * 1_000_000);
    await quota.reserve(memberId);
    const second = await quota.reserve(memberId);
    await second.release();
    await quota.reserve(memberId);
    await expect(quota.reserve(memberId)).rejects.toMatchObject({ status: 429, code: 'RECEIPT_QUOTA_EXCEEDED' });
  });

  test('sent no command whose keys span slots (and did send multi-key ones)', () => {
    expect(watch.calls).toEqual([]);
    expect(watch.multiKeyCalls).toBeGreaterThan(10);
  });
});
