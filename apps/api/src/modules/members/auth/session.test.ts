import { authSession } from '@nestegg/db';
import { redisTopologies } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { signUpAndLogIn, uniqueEmail } from '../../../test/auth-helpers.js';
import { bodyOf, contractClient } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { hashToken, REMEMBER_ME_TTL_SECONDS, sessionCacheKeys } from './session.store.js';

const DAY = 24 * 60 * 60;

const profileStatus = async (app: FastifyInstance, token: string) =>
  (await contractClient(app, { token }).auth.getProfile()).status;
const backupOf = async (app: FastifyInstance, token: string) =>
  (
    await app.db
      .select()
      .from(authSession)
      .where(eq(authSession.tokenHash, hashToken(token)))
  )[0];

// vitest defines file-scoped fixtures at the top level only: one app per topology, and one per other describe.
const onTopology = new Map(
  redisTopologies.map((topology) => [topology, apiTest({ SESSION_TTL_HOURS: '24' }, { redis: topology })]),
);
const failingRedisTest = apiTest();
const withoutRedisTest = apiTest({ REDIS_URL: '' });

describe.each(redisTopologies)('sessions (%s Redis with a Postgres backup)', (topology) => {
  const test = onTopology.get(topology)!;

  test('writes the fast store and the backup together at login', async ({ app }) => {
    const { token } = await signUpAndLogIn(app);
    expect(await backupOf(app, token)).toBeDefined();
    expect(await app.redis!.exists(sessionCacheKeys(hashToken(token)).session)).toBe(1);
  });

  test('lasts 30 days with rememberMe, and the configured idle lifetime without', async ({ app }) => {
    const remembered = await signUpAndLogIn(app, { rememberMe: true });
    const normal = await signUpAndLogIn(app, { rememberMe: false });
    const secondsLeft = (iso: string) => (new Date(iso).getTime() - Date.now()) / 1000;
    expect(secondsLeft(remembered.expiresAt)).toBeGreaterThan(REMEMBER_ME_TTL_SECONDS - 60);
    expect(secondsLeft(normal.expiresAt)).toBeLessThanOrEqual(DAY);
    expect(secondsLeft(normal.expiresAt)).toBeGreaterThan(DAY - 60);
    expect(await app.redis!.ttl(sessionCacheKeys(hashToken(remembered.token)).session)).toBeGreaterThan(
      REMEMBER_ME_TTL_SECONDS - 60,
    );
    expect((await backupOf(app, remembered.token))?.rememberMe).toBe(true);
  });

  test('restores a session from the backup when the fast store misses, and stores it again', async ({ app }) => {
    const { token } = await signUpAndLogIn(app);
    await app.redis!.del(sessionCacheKeys(hashToken(token)).session);
    expect(await profileStatus(app, token)).toBe(200);
    expect(await app.redis!.exists(sessionCacheKeys(hashToken(token)).session)).toBe(1);
  });

  test('slides the backup lifetime when it is due', async ({ app }) => {
    const { token } = await signUpAndLogIn(app);
    const soon = new Date(Date.now() + 60_000);
    await app.db
      .update(authSession)
      .set({ expiresAt: soon })
      .where(eq(authSession.tokenHash, hashToken(token)));
    await app.redis!.del(sessionCacheKeys(hashToken(token)).slideMarker);
    expect(await profileStatus(app, token)).toBe(200);
    expect((await backupOf(app, token))!.expiresAt.getTime()).toBeGreaterThan(Date.now() + DAY * 1000 - 60_000);
  });

  test('refuses an expired backup', async ({ app }) => {
    const { token } = await signUpAndLogIn(app);
    await app.redis!.del(sessionCacheKeys(hashToken(token)).session);
    await app.db
      .update(authSession)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authSession.tokenHash, hashToken(token)));
    expect(await profileStatus(app, token)).toBe(401);
  });

  test('never caches a backup row read just before a plan change committed', async ({ app }) => {
    const { token, member: created } = await signUpAndLogIn(app);
    const tokenHash = hashToken(token);
    await app.redis!.del(sessionCacheKeys(tokenHash).session);
    // Make the backup due to slide, and let the plan change commit right after the backup was read.
    await app.db
      .update(authSession)
      .set({ expiresAt: new Date(Date.now() + 60_000) })
      .where(eq(authSession.tokenHash, tokenHash));
    const store = app.services.sessions as unknown as { slideBackup: (...args: unknown[]) => Promise<Date> };
    const slideBackup = store.slideBackup.bind(store);
    store.slideBackup = async (...args) => {
      store.slideBackup = slideBackup;
      await app.services.sessions.updateMember(created.id, { plan: 'PREMIUM' });
      return slideBackup(...args);
    };
    expect((await app.services.sessions.resolve(token))?.plan).toBe('FREE');
    expect((await app.services.sessions.resolve(token))?.plan).toBe('PREMIUM');
  });

  test('logout deletes the session from both stores', async ({ app }) => {
    const { token } = await signUpAndLogIn(app);
    const response = await contractClient(app, { token }).auth.logout();
    expect(response.status).toBe(204);
    expect(await backupOf(app, token)).toBeUndefined();
    expect(await app.redis!.exists(sessionCacheKeys(hashToken(token)).session)).toBe(0);
    expect(await profileStatus(app, token)).toBe(401);
  });

  test('carries a new display name into live sessions at once', async ({ app }) => {
    const { token } = await signUpAndLogIn(app, { displayName: 'Before' });
    const update = await contractClient(app, { token }).auth.updateProfile({ body: { displayName: 'After' } });
    expect(update.status).toBe(200);
    expect((await app.services.sessions.resolve(token))?.displayName).toBe('After');
    expect((await backupOf(app, token))?.displayName).toBe('After');
  });
});

describe('sessions when Redis fails', () => {
  const test = failingRedisTest;

  test('falls back to the backup for sessions and lets logins through when the counter store fails', async ({
    app,
    anonymous,
  }) => {
    const { email, password, token } = await signUpAndLogIn(app);
    app.redis!.disconnect();
    try {
      expect(await profileStatus(app, token)).toBe(200);
      const login = await anonymous.auth.login({ body: { email, password } });
      expect(login.status).toBe(200);
      expect(await profileStatus(app, bodyOf(login, 200).token)).toBe(200);
      for (let attempt = 0; attempt < 12; attempt += 1) {
        const failed = await anonymous.auth.login({ body: { email, password: 'wrong wrong' } });
        expect(failed.status).toBe(401);
      }
    } finally {
      await app.redis!.connect();
    }
  });
});

describe('sessions without Redis configured', () => {
  const test = withoutRedisTest;

  test('keeps sessions in Postgres only and counts login failures in memory', async ({ app }) => {
    expect(app.redis).toBeNull();
    const { email, token, member: created } = await signUpAndLogIn(app);
    expect(bodyOf(await contractClient(app, { token }).auth.getProfile(), 200).id).toBe(created.id);
    // Each against an e-mail no account has, so only the per-address limit (counted in memory) applies.
    const client = contractClient(app, { remoteAddress: '10.5.0.1' });
    const wrong = (to = uniqueEmail('stranger')) => client.auth.login({ body: { email: to, password: 'wrong one' } });
    for (let attempt = 0; attempt < 10; attempt += 1) expect((await wrong()).status).toBe(401);
    expect((await wrong(email)).status).toBe(429);
  });
});
