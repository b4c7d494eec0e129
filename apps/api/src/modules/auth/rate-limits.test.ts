import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { signUpAndLogIn, uniqueEmail } from '../../test/auth-helpers.js';

const wrongLogin = (email: string) => ({
  method: 'POST' as const,
  url: '/api/auth/login',
  payload: { email, password: 'wrong password' },
});

describe('login failure limit: 10 per 10 minutes per IP', () => {
  const app = useTestApp();

  it('answers 429 RATE_LIMITED with Retry-After after 10 failures, even for the right password', async () => {
    const { email, password } = await signUpAndLogIn(app.current);
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const failed = await app.current.inject({ ...wrongLogin(email), remoteAddress: '10.2.0.1' });
      expect(failed.statusCode).toBe(401);
    }
    const blocked = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.2.0.1',
      payload: { email, password },
    });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('RATE_LIMITED');
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(500);
    expect(retryAfter).toBeLessThanOrEqual(600);
    const elsewhere = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.2.0.2',
      payload: { email, password },
    });
    expect(elsewhere.statusCode).toBe(200);
  });

  it('clears the counter on a successful login', async () => {
    const { email, password } = await signUpAndLogIn(app.current);
    for (let attempt = 0; attempt < 9; attempt += 1)
      await app.current.inject({ ...wrongLogin(email), remoteAddress: '10.2.0.3' });
    const success = await app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.2.0.3',
      payload: { email, password },
    });
    expect(success.statusCode).toBe(200);
    for (let attempt = 0; attempt < 9; attempt += 1) {
      expect((await app.current.inject({ ...wrongLogin(email), remoteAddress: '10.2.0.3' })).statusCode).toBe(401);
    }
  });

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    const email = uniqueEmail();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await app.current.inject({
        ...wrongLogin(email),
        remoteAddress: '10.2.0.4',
        headers: { 'x-forwarded-for': `198.51.100.${attempt}` },
      });
    }
    const spoofed = await app.current.inject({
      ...wrongLogin(email),
      remoteAddress: '10.2.0.4',
      headers: { 'x-forwarded-for': '198.51.100.99' },
    });
    expect(spoofed.statusCode).toBe(429);
  });
});

describe('client IP behind a trusted proxy', () => {
  const app = useTestApp({ TRUST_PROXY: '10.3.0.1' });

  it('counts per forwarded client address when the request comes through the trusted proxy', async () => {
    const email = uniqueEmail();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await app.current.inject({
        ...wrongLogin(email),
        remoteAddress: '10.3.0.1',
        headers: { 'x-forwarded-for': '203.0.113.7' },
      });
    }
    const sameClient = await app.current.inject({
      ...wrongLogin(email),
      remoteAddress: '10.3.0.1',
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(sameClient.statusCode).toBe(429);
    const otherClient = await app.current.inject({
      ...wrongLogin(email),
      remoteAddress: '10.3.0.1',
      headers: { 'x-forwarded-for': '203.0.113.8' },
    });
    expect(otherClient.statusCode).toBe(401);
  });
});

describe('sign-up limit: 5 per hour per IP', () => {
  const app = useTestApp();
  const signup = (remoteAddress: string) =>
    app.current.inject({
      method: 'POST',
      url: '/api/auth/signup',
      remoteAddress,
      payload: { email: uniqueEmail(), password: 'password-1', displayName: 'New' },
    });

  it('answers the sixth sign-up from one IP within the hour with 429', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await signup('10.4.0.1')).statusCode).toBe(201);
    const blocked = await signup('10.4.0.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(3000);
    expect((await signup('10.4.0.2')).statusCode).toBe(201);
  });
});
