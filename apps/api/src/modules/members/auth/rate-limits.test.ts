import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { signUpAndLogIn, uniqueEmail } from '../../../test/auth-helpers.js';
import { apiTest } from '../../../test/fixtures.js';

const login = (app: FastifyInstance, email: string, password: string, remoteAddress: string, headers = {}) =>
  app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, headers, payload: { email, password } });

/** Wrong logins from one address, each against an e-mail no account has (so no account lock interferes). */
async function wrongLoginsToStrangers(app: FastifyInstance, ip: string, count: number) {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < count; attempt += 1) {
    statuses.push((await login(app, uniqueEmail('stranger'), 'wrong password', ip)).statusCode);
  }
  return statuses;
}

const loginLimitTest = apiTest();

describe('login failure limit: 10 per 10 minutes per IP', () => {
  const test = loginLimitTest;

  test('answers 429 RATE_LIMITED with Retry-After after 10 failures, even for the right password', async ({ app }) => {
    const { email, password } = await signUpAndLogIn(app);
    expect(await wrongLoginsToStrangers(app, '10.2.0.1', 10)).toEqual(Array(10).fill(401));
    const blocked = await login(app, email, password, '10.2.0.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('RATE_LIMITED');
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(500);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(blocked.headers['x-ratelimit-remaining']).toBe('0');
    expect(blocked.headers['x-ratelimit-reset']).toBe(String(retryAfter));
    expect((await login(app, email, password, '10.2.0.2')).statusCode).toBe(200);
  });

  test("clears the honest member's own failures on their success", async ({ app }) => {
    const { email, password } = await signUpAndLogIn(app, { ip: '10.2.0.3' });
    for (let attempt = 0; attempt < 9; attempt += 1) await login(app, email, 'wrong password', '10.2.0.3');
    expect((await login(app, email, password, '10.2.0.3')).statusCode).toBe(200);
    for (let attempt = 0; attempt < 9; attempt += 1) {
      expect((await login(app, email, 'wrong password', '10.2.0.3')).statusCode).toBe(401);
    }
  });

  test("does not let a success on the attacker's own account clear failures against other accounts", async ({
    app,
  }) => {
    const own = await signUpAndLogIn(app, { ip: '10.2.0.5' });
    const statuses: number[] = [];
    for (let round = 0; round < 6; round += 1) {
      statuses.push(...(await wrongLoginsToStrangers(app, '10.2.0.5', 2)));
      statuses.push((await login(app, own.email, own.password, '10.2.0.5')).statusCode);
    }
    // 10 failures against others in all, whatever the interleaved successes; then the address is blocked.
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.at(-1)).toBe(429);
  });

  test('counts 40 parallel wrong logins from one address against the limit of 10', async ({ app }) => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => login(app, uniqueEmail('parallel'), 'wrong password', '10.2.0.6')),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);
  });

  test('ignores X-Forwarded-For when no proxy is trusted', async ({ app }) => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await login(app, uniqueEmail(), 'wrong password', '10.2.0.4', {
        'x-forwarded-for': `198.51.100.${attempt}`,
      });
    }
    const spoofed = await login(app, uniqueEmail(), 'wrong password', '10.2.0.4', {
      'x-forwarded-for': '198.51.100.99',
    });
    expect(spoofed.statusCode).toBe(429);
  });
});

const backoffTest = apiTest();

describe('per-account login backoff across addresses', () => {
  const test = backoffTest;

  test('locks an account after 5 failures from unknown addresses, for them only', async ({ app }) => {
    const owner = await signUpAndLogIn(app, { ip: '10.6.0.1' });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await login(app, owner.email, 'wrong password', `10.6.1.${attempt}`)).statusCode).toBe(401);
    }
    const locked = await login(app, owner.email, owner.password, '10.6.1.99');
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(20);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(30);
    // The owner's own address logged in before: the attacker cannot lock them out.
    expect((await login(app, owner.email, owner.password, '10.6.0.1')).statusCode).toBe(200);
  });

  test('stops 90 parallel guesses from 30 addresses, and the right password from a new address then', async ({
    app,
  }) => {
    const owner = await signUpAndLogIn(app, { ip: '10.6.0.2' });
    const guesses = await Promise.all(
      Array.from({ length: 90 }, (_, index) => login(app, owner.email, `guess ${index}`, `10.6.2.${index % 30}`)),
    );
    const evaluated = guesses.filter((answer) => answer.statusCode === 401).length;
    expect(evaluated).toBeLessThanOrEqual(6);
    expect(guesses.filter((answer) => answer.statusCode === 429)).toHaveLength(90 - evaluated);
    expect((await login(app, owner.email, owner.password, '10.6.3.1')).statusCode).toBe(429);
  });
});

const gateTest = apiTest();

describe('password gate under parallel failures', () => {
  const test = gateTest;

  test('counts 30 parallel wrong gate calls against the limit of 5', async ({ app }) => {
    const { headers } = await signUpAndLogIn(app);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        app.inject({
          method: 'POST',
          url: '/api/auth/verify-password',
          headers,
          payload: { password: 'wrong one' },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 400)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
  });
});

const hashQueueTest = apiTest();

describe('bounded queue of password verifications', () => {
  const test = hashQueueTest;

  test('sheds a flood of logins quickly with 503 instead of queueing it, and still serves a genuine login', async ({
    app,
  }) => {
    const owner = await signUpAndLogIn(app, { ip: '10.7.0.1' });
    const started = performance.now();
    const timed = (promise: Promise<{ statusCode: number; headers: Record<string, unknown> }>) =>
      promise.then((answer) => ({ answer, ms: performance.now() - started }));
    const flood = Array.from({ length: 150 }, (_, index) =>
      timed(login(app, uniqueEmail('flood'), 'wrong password', `10.7.${1 + Math.floor(index / 200)}.${index % 200}`)),
    );
    const genuine = timed(login(app, owner.email, owner.password, '10.7.0.1'));
    const answers = await Promise.all(flood);
    const shed = answers.filter(({ answer }) => answer.statusCode === 503);
    expect(shed.length).toBeGreaterThan(50);
    expect(shed.every(({ answer }) => answer.headers['retry-after'] !== undefined)).toBe(true);
    expect(answers.every(({ answer }) => [401, 503].includes(answer.statusCode))).toBe(true);
    // Bounded, not queued: no hash waited past PASSWORD_HASH_MAX_WAIT_MS (2 s), so nothing built a backlog.
    const waits = (await app.metrics.passwordHashWait.get()).values;
    const within = (le: number | string) =>
      waits.find((sample) => sample.metricName?.endsWith('_bucket') && sample.labels.le === le)?.value;
    expect(within(2)).toBeGreaterThan(0);
    expect(within(2)).toBe(within('+Inf'));
    const { answer, ms } = await genuine;
    expect([200, 503]).toContain(answer.statusCode);
    expect(ms).toBeLessThan(4000);
  });
});

const trustedProxyTest = apiTest({ TRUST_PROXY: '10.3.0.1' });

describe('client IP behind a trusted proxy', () => {
  const test = trustedProxyTest;

  test('counts per forwarded client address when the request comes through the trusted proxy', async ({ app }) => {
    const forwardedFor = (client: string) => ({ 'x-forwarded-for': client });
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await login(app, uniqueEmail(), 'wrong password', '10.3.0.1', forwardedFor('203.0.113.7'));
    }
    const sameClient = await login(app, uniqueEmail(), 'wrong password', '10.3.0.1', forwardedFor('203.0.113.7'));
    expect(sameClient.statusCode).toBe(429);
    const otherClient = await login(app, uniqueEmail(), 'wrong password', '10.3.0.1', forwardedFor('203.0.113.8'));
    expect(otherClient.statusCode).toBe(401);
  });
});

const signupLimitTest = apiTest();

describe('sign-up limit: 5 per hour per IP', () => {
  const test = signupLimitTest;
  const signup = (app: FastifyInstance, remoteAddress: string) =>
    app.inject({
      method: 'POST',
      url: '/api/auth/signup',
      remoteAddress,
      payload: { email: uniqueEmail(), password: 'violet kettle 1', displayName: 'New' },
    });

  test('answers the sixth sign-up from one IP within the hour with 429', async ({ app }) => {
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await signup(app, '10.4.0.1')).statusCode).toBe(201);
    const blocked = await signup(app, '10.4.0.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(3000);
    expect((await signup(app, '10.4.0.2')).statusCode).toBe(201);
  });

  test('says the limit, what remains and when it resets, on successes and on the 429 (decision O5)', async ({
    app,
  }) => {
    const first = await signup(app, '10.4.0.4');
    expect(first.statusCode).toBe(201);
    expect(first.headers['x-ratelimit-limit']).toBe('5');
    expect(first.headers['x-ratelimit-remaining']).toBe('4');
    expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(3000);
    for (let attempt = 0; attempt < 4; attempt += 1) await signup(app, '10.4.0.4');
    const blocked = await signup(app, '10.4.0.4');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['x-ratelimit-limit']).toBe('5');
    expect(blocked.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(blocked.headers['x-ratelimit-reset'])).toBeGreaterThan(3000);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(3000);
  });

  test('counts in Redis under a key that names the limit and the address', async ({ app }) => {
    expect((await signup(app, '10.4.0.3')).statusCode).toBe(201);
    // ioredis does not put its key prefix on KEYS patterns.
    const keyPrefix = app.env.REDIS_KEY_PREFIX;
    const keys = await app.redis!.keys(`${keyPrefix}rate-limit:*`);
    expect(keys).toContain(`${keyPrefix}rate-limit:signup:10.4.0.3`);
    expect(keys.filter((key) => key.includes('undefined'))).toEqual([]);
  });
});
