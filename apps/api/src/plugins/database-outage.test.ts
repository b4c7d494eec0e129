import { type CuttableProxy, startCuttableProxy, useApp } from '@nestegg/testing';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadEnv } from '../env.js';
import { createMemberWithSession, type TestMember, testEnvironment } from '../test/app.js';

/**
 * Issue 17, item 2: while PostgreSQL is away every request answers fast with 503 DATABASE_UNAVAILABLE and
 * `Retry-After`, requests that need no database (a session cached in Redis) still work, and the api
 * recovers by itself. The api reaches the shared PostgreSQL through a proxy this file cuts.
 */

let proxy: CuttableProxy;
const app = useApp(async (context) => {
  const url = new URL(context.databaseUrl);
  proxy = await startCuttableProxy({ host: url.hostname, port: Number(url.port || 5432) });
  return buildApp(loadEnv(testEnvironment(context, { DATABASE_URL: proxy.via(context.databaseUrl) })));
});
afterAll(async () => {
  await proxy?.close();
});

/** The time budget of one answer while the database is away (the defaults add up to about 2 s). */
const REFUSED_BUDGET_MS = 2000;
const HANGING_BUDGET_MS = 2500;

async function timed(send: () => Promise<LightMyRequestResponse>) {
  const started = performance.now();
  const response = await send();
  return { response, ms: performance.now() - started };
}

function expectDatabaseUnavailable(response: LightMyRequestResponse) {
  expect(response.statusCode, response.body).toBe(503);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.headers['retry-after']).toBe('5');
  expect(response.json()).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
  expect(response.body).not.toMatch(/Failed query|select |insert |delete |ECONNREFUSED|postgres:\/\/|\n\s+at /i);
}

describe('while PostgreSQL is away', () => {
  let member: TestMember;

  beforeAll(async () => {
    member = await createMemberWithSession(app.current);
  });

  const wallets = () => app.current.inject({ method: 'GET', url: '/api/account/wallets', headers: member.headers });
  const login = () =>
    app.current.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: member.email, password: 'not-the-password-1234', rememberMe: false },
    });
  const products = () => app.current.inject({ method: 'GET', url: '/api/billing/products', headers: member.headers });

  async function expectRecovery() {
    const deadline = Date.now() + 5000;
    let last = await wallets();
    while (last.statusCode !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      last = await wallets();
    }
    expect(last.statusCode, last.body).toBe(200);
  }

  it('refused connections: every request answers 503 DATABASE_UNAVAILABLE within 2 s, for seconds on end, then recovers', async () => {
    expect((await wallets()).statusCode).toBe(200);
    await proxy.cut('refuse');
    try {
      // Rounds over several seconds: the driver's reconnect backoff grew to 10–20 s during a restart.
      const until = Date.now() + 4000;
      let rounds = 0;
      while (Date.now() < until) {
        const answers = await Promise.all([
          ...Array.from({ length: 25 }, () => timed(wallets)),
          ...(rounds === 0 ? [timed(login)] : []),
        ]);
        for (const { response, ms } of answers) {
          expectDatabaseUnavailable(response);
          expect(ms).toBeLessThan(REFUSED_BUDGET_MS);
        }
        rounds += 1;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(rounds).toBeGreaterThan(1);

      // The reported case: an idempotent create during the outage (its key cannot even be claimed).
      const create = await timed(() =>
        app.current.inject({
          method: 'POST',
          url: '/api/account/entries',
          headers: { ...member.headers, 'idempotency-key': 'outage-key-0001' },
          payload: { type: 'EXPENSE', amount: 1000, memo: 'coffee' },
        }),
      );
      expectDatabaseUnavailable(create.response);
      expect(create.ms).toBeLessThan(REFUSED_BUDGET_MS);

      // A session cached in Redis, on a route that needs no database, still works.
      const cached = await products();
      expect(cached.statusCode, cached.body).toBe(200);
    } finally {
      await proxy.restore();
    }
    await expectRecovery();
  });

  it('connections terminated by the server mid-traffic (57P01): each answer is 200 or 503, never 500', async () => {
    expect((await wallets()).statusCode).toBe(200);
    const answers = Promise.all(Array.from({ length: 40 }, () => wallets()));
    // As an administrator's pg_terminate_backend or a fast shutdown does to every other connection.
    await app.current.sql`
      select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()`;
    // Which requests were in flight when their connection went is up to timing; none may answer 500.
    for (const response of await answers) {
      if (response.statusCode === 503) expectDatabaseUnavailable(response);
      else expect(response.statusCode, response.body).toBe(200);
    }
    await expectRecovery();
  });

  it('hanging connections: requests, more than the pool holds, answer 503 within the budget, then recover', async () => {
    expect((await wallets()).statusCode).toBe(200);
    await proxy.cut('blackhole');
    try {
      const answers = await Promise.all(Array.from({ length: 30 }, () => timed(wallets)));
      for (const { response, ms } of answers) {
        expectDatabaseUnavailable(response);
        expect(ms).toBeLessThan(HANGING_BUDGET_MS);
      }
      const cached = await products();
      expect(cached.statusCode, cached.body).toBe(200);
    } finally {
      await proxy.restore();
    }
    await expectRecovery();
  });
});
