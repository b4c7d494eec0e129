import { authSession } from '@nestegg/db';
import { redisTopologies } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { signUpAndLogIn, uniqueEmail } from '../../test/auth-helpers.js';
import { hashToken, REMEMBER_ME_TTL_SECONDS, sessionCacheKeys } from './session.store.js';

const DAY = 24 * 60 * 60;

describe.each(redisTopologies)('sessions (%s Redis with a Postgres backup)', (topology) => {
  const app = useTestApp({ SESSION_TTL_HOURS: '24' }, { redis: topology });
  const profile = (headers: Record<string, string>) =>
    app.current.inject({ method: 'GET', url: '/api/auth/profile', headers });
  const backupOf = async (token: string) =>
    (
      await app.current.db
        .select()
        .from(authSession)
        .where(eq(authSession.tokenHash, hashToken(token)))
    )[0];

  it('writes the fast store and the backup together at login', async () => {
    const { token } = await signUpAndLogIn(app.current);
    expect(await backupOf(token)).toBeDefined();
    expect(await app.current.redis!.exists(sessionCacheKeys(hashToken(token)).session)).toBe(1);
  });

  it('lasts 30 days with rememberMe, and the configured idle lifetime without', async () => {
    const remembered = await signUpAndLogIn(app.current, { rememberMe: true });
    const normal = await signUpAndLogIn(app.current, { rememberMe: false });
    const secondsLeft = (iso: string) => (new Date(iso).getTime() - Date.now()) / 1000;
    expect(secondsLeft(remembered.expiresAt)).toBeGreaterThan(REMEMBER_ME_TTL_SECONDS - 60);
    expect(secondsLeft(normal.expiresAt)).toBeLessThanOrEqual(DAY);
    expect(secondsLeft(normal.expiresAt)).toBeGreaterThan(DAY - 60);
    expect(await app.current.redis!.ttl(sessionCacheKeys(hashToken(remembered.token)).session)).toBeGreaterThan(
      REMEMBER_ME_TTL_SECONDS - 60,
    );
    expect((await backupOf(remembered.token))?.rememberMe).toBe(true);
  });

  it('restores a session from the backup when the fast store misses, and stores it again', async () => {
    const { token, headers } = await signUpAndLogIn(app.current);
    await app.current.redis!.del(sessionCacheKeys(hashToken(token)).session);
    expect((await profile(headers)).statusCode).toBe(200);
    expect(await app.current.redis!.exists(sessionCacheKeys(hashToken(token)).session)).toBe(1);
  });

  it('slides the backup lifetime when it is due', async () => {
    const { token, headers } = await signUpAndLogIn(app.current);
    const soon = new Date(Date.now() + 60_000);
    await app.current.db
      .update(authSession)
      .set({ expiresAt: soon })
      .where(eq(authSession.tokenHash, hashToken(token)));
    await app.current.redis!.del(sessionCacheKeys(hashToken(token)).slideMarker);
    expect((await profile(headers)).statusCode).toBe(200);
    expect((await backupOf(token))!.expiresAt.getTime()).toBeGreaterThan(Date.now() + DAY * 1000 - 60_000);
  });

  it('refuses an expired backup', async () => {
    const { token, headers } = await signUpAndLogIn(app.current);
    await app.current.redis!.del(sessionCacheKeys(hashToken(token)).session);
    await app.current.db
      .update(authSession)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authSession.tokenHash, hashToken(token)));
    expect((await profile(headers)).statusCode).toBe(401);
  });

  it('never caches a backup row read just before a plan change committed', async () => {
    const { token, member: created } = await signUpAndLogIn(app.current);
    const tokenHash = hashToken(token);
    await app.current.redis!.del(sessionCacheKeys(tokenHash).session);
    // Make the backup due to slide, and let the plan change commit right after the backup was read.
    await app.current.db
      .update(authSession)
      .set({ expiresAt: new Date(Date.now() + 60_000) })
      .where(eq(authSession.tokenHash, tokenHash));
    const store = app.current.services.sessions as unknown as { slideBackup: (...args: unknown[]) => Promise<Date> };
    const slideBackup = store.slideBackup.bind(store);
    store.slideBackup = async (...args) => {
      store.slideBackup = slideBackup;
      await app.current.services.sessions.updateMember(created.id, { plan: 'PREMIUM' });
      return slideBackup(...args);
    };
    expect((await app.current.services.sessions.resolve(token))?.plan).toBe('FREE');
    expect((await app.current.services.sessions.resolve(token))?.plan).toBe('PREMIUM');
  });

  it('logout deletes the session from both stores', async () => {
    const { token, headers } = await signUpAndLogIn(app.current);
    const response = await app.current.inject({ method: 'POST', url: '/api/auth/logout', headers });
    expect(response.statusCode).toBe(204);
    expect(await backupOf(token)).toBeUndefined();
    expect(await app.current.redis!.exists(sessionCacheKeys(hashToken(token)).session)).toBe(0);
    expect((await profile(headers)).statusCode).toBe(401);
  });

  it('carries a new display name into live sessions at once', async () => {
    const { token, headers } = await signUpAndLogIn(app.current, { displayName: 'Before' });
    const update = await app.current.inject({
      method: 'PUT',
      url: '/api/auth/profile',
      headers,
      payload: { displayName: 'After' },
    });
    expect(update.statusCode).toBe(200);
    expect((await app.current.services.sessions.resolve(token))?.displayName).toBe('After');
    expect((await backupOf(token))?.displayName).toBe('After');
  });
});

describe('sessions when Redis fails', () => {
  const app = useTestApp();

  it('falls back to the backup for sessions and lets logins through when the counter store fails', async () => {
    const { email, password, headers } = await signUpAndLogIn(app.current);
    app.current.redis!.disconnect();
    try {
      expect((await app.current.inject({ method: 'GET', url: '/api/auth/profile', headers })).statusCode).toBe(200);
      const login = await app.current.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
      expect(login.statusCode).toBe(200);
      const newSession = { authorization: `Bearer ${login.json().token}` };
      expect(
        (await app.current.inject({ method: 'GET', url: '/api/auth/profile', headers: newSession })).statusCode,
      ).toBe(200);
      for (let attempt = 0; attempt < 12; attempt += 1) {
        const failed = await app.current.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email, password: 'wrong wrong' },
        });
        expect(failed.statusCode).toBe(401);
      }
    } finally {
      await app.current.redis!.connect();
    }
  });
});

describe('sessions without Redis configured', () => {
  const app = useTestApp({ REDIS_URL: '' });

  it('keeps sessions in Postgres only and counts login failures in memory', async () => {
    expect(app.current.redis).toBeNull();
    const { email, headers, member: created } = await signUpAndLogIn(app.current);
    expect((await app.current.inject({ method: 'GET', url: '/api/auth/profile', headers })).json().id).toBe(created.id);
    // Each against an e-mail no account has, so only the per-address limit (counted in memory) applies.
    const wrong = () => ({
      method: 'POST' as const,
      url: '/api/auth/login',
      remoteAddress: '10.5.0.1',
      payload: { email: uniqueEmail('stranger'), password: 'wrong one' },
    });
    for (let attempt = 0; attempt < 10; attempt += 1) expect((await app.current.inject(wrong())).statusCode).toBe(401);
    expect((await app.current.inject({ ...wrong(), payload: { email, password: 'wrong one' } })).statusCode).toBe(429);
  });
});
