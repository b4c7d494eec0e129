import {
  IdempotencyHeadersSchema,
  meta,
  ProblemCodeSchema,
  problems,
  routerOptions,
  withCommonProblems,
} from '@nestegg/contract';
import { initContract } from '@ts-rest/core';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, vi } from 'vitest';
import { z } from 'zod';
import { registerContractRouter } from '../lib/contract-router.js';
import { IdempotencyStore } from '../lib/idempotency-store.js';
import { createMemberWithSession, type TestMember } from '../test/app.js';
import { apiTest } from '../test/fixtures.js';

/**
 * Issue 17, item 3: whatever fails while a request is answered (a hook, an onSend hook, the store of an
 * idempotent answer, the session lookup, the rate-limit store, the request log), the client gets
 * problem+json with a ProblemCode and nothing internal: no SQL, no parameters, no stack, no connection
 * string. Failures are injected into each hook that touches the database or Redis.
 */

const c = initContract();
const probe = withCommonProblems(
  c.router(
    {
      create: {
        method: 'POST',
        path: '/api/probe/answers',
        headers: IdempotencyHeadersSchema,
        body: z.object({ fail: z.enum(['database', 'bug']).optional() }),
        responses: { 201: z.object({ id: z.number() }) },
        metadata: meta('login'),
      },
      limited: {
        method: 'GET',
        path: '/api/probe/limited',
        responses: { 200: z.object({ ok: z.boolean() }), ...problems('RATE_LIMITED') },
        metadata: meta('login'),
      },
      plain: {
        method: 'GET',
        path: '/api/probe/plain',
        responses: { 200: z.object({ ok: z.boolean() }) },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

/** What drizzle rejects with when the driver failed: the statement and its parameters in the message. */
function failedQuery(statement: string, params: unknown[], cause: object): DrizzleQueryError {
  return new DrizzleQueryError(statement, params, Object.assign(new Error(`driver: ${statement}`), cause));
}

const connectionRefused = { code: 'ECONNREFUSED', address: '10.0.0.5', port: 5432 };
const KEY = 'answer-key-';
let keys = 0;
const nextKey = () => `${KEY}${String(++keys).padStart(4, '0')}`;

const releaseFailed = (key: string) =>
  failedQuery(
    'delete from "idempotency_key" where ("idempotency_key"."member_id" = $1 and "idempotency_key"."route" = $2 and "idempotency_key"."key" = $3 and "idempotency_key"."status" is null)',
    [25, 'POST /api/probe/answers', key],
    connectionRefused,
  );

/** Nothing of the server's insides: SQL, its parameters, stack frames, driver codes, connection strings. */
function expectCleanProblem(response: LightMyRequestResponse, status?: number) {
  expect(response.headers['content-type'], response.body).toMatch(/^application\/problem\+json/);
  const body = response.json() as { status: number; code: string };
  if (status) expect(response.statusCode, response.body).toBe(status);
  expect(body.status).toBe(response.statusCode);
  expect(ProblemCodeSchema.safeParse(body.code).success, body.code).toBe(true);
  for (const leak of [
    /Failed query/i,
    /\bselect\b/i,
    /\binsert\b/i,
    /\bdelete\b/i,
    /\bupdate\b/i,
    /idempotency_key/,
    /params:/,
    /\n\s+at /,
    /\bat .*\.(ts|js):\d+/,
    /postgres(ql)?:\/\//,
    /redis:\/\//,
    /ECONN|CONNECTION_|57P0/,
    /statusCode/,
  ]) {
    expect(response.body, String(leak)).not.toMatch(leak);
  }
  return body;
}

const test = apiTest();

describe('every answer is problem+json without internal text, whatever fails', () => {
  let member: TestMember;
  let created = 0;

  test.beforeAll(async ({ app }) => {
    await app.register(async (scope) => {
      // An onResponse hook that fails like a database write would (after the answer went out).
      scope.addHook('onResponse', async (request) => {
        if (request.headers['x-fail-on-response']) {
          throw failedQuery('insert into "request_log" values ($1)', ['secret-parameter'], connectionRefused);
        }
      });
      // An onSend hook of the probe routes that fails like a database call would (a plugin's hook, say).
      scope.addHook('onSend', async (request, _reply, payload) => {
        const fail = request.headers['x-fail-on-send'];
        if (fail === 'database') throw failedQuery('select "id" from "member" where "id" = $1', [7], connectionRefused);
        if (fail === 'bug') throw failedQuery('select "id" from "nowhere" where "id" = $1', [7], { code: '42P01' });
        return payload;
      });
      registerContractRouter(scope, probe, {
        create: async ({ body }) => {
          if (body.fail === 'database') throw failedQuery('insert into "entry" values ($1)', [1], connectionRefused);
          if (body.fail === 'bug') throw new Error('Failed query: insert into "entry" values ($1)\nparams: 1');
          created += 1;
          return { status: 201, body: { id: created } };
        },
        limited: {
          hooks: { onRequest: app.rateLimit({ max: 100, timeWindow: '1 minute' }) },
          handler: async () => ({ status: 200, body: { ok: true } }),
        },
        plain: async () => ({ status: 200, body: { ok: true } }),
      });
    });
    member = await createMemberWithSession(app);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  const create = (app: FastifyInstance, body: object, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/api/probe/answers',
      headers: { ...member.headers, 'idempotency-key': nextKey(), ...headers },
      payload: body,
    });

  describe('Idempotency-Key', () => {
    test('releasing the key fails after a failed request (the reported leak): 503 DATABASE_UNAVAILABLE, problem+json', async ({
      app,
    }) => {
      const release = vi
        .spyOn(IdempotencyStore.prototype, 'release')
        .mockImplementation(async (scope) => Promise.reject(releaseFailed((scope as { key?: string }).key ?? 'k')));
      const response = await create(app, { fail: 'database' });
      expect(release).toHaveBeenCalled();
      expect(expectCleanProblem(response, 503).code).toBe('DATABASE_UNAVAILABLE');
      expect(response.headers['retry-after']).toBe('5');
    });

    test('releasing the key fails after a bug: still problem+json', async ({ app }) => {
      vi.spyOn(IdempotencyStore.prototype, 'release').mockRejectedValue(
        failedQuery('delete from "idempotency_key"', [25], { code: '42P01' }),
      );
      const response = await create(app, { fail: 'bug' });
      expect(expectCleanProblem(response, 500).code).toBe('INTERNAL_ERROR');
    });

    test('storing the answer fails after the handler succeeded: a 5xx problem+json', async ({ app }) => {
      vi.spyOn(IdempotencyStore.prototype, 'complete').mockRejectedValue(
        failedQuery('update "idempotency_key" set "status" = $1', [201, '{"id":1}', 25], { code: 'CONNECTION_CLOSED' }),
      );
      const response = await create(app, {});
      expect(response.statusCode).toBeGreaterThanOrEqual(500);
      expectCleanProblem(response);
    });

    test('claiming the key fails: 503 DATABASE_UNAVAILABLE', async ({ app }) => {
      vi.spyOn(IdempotencyStore.prototype, 'claim').mockRejectedValue(
        failedQuery('insert into "idempotency_key" ("member_id", "route", "key") values ($1, $2, $3)', [25], {
          code: 'ECONNRESET',
        }),
      );
      const response = await create(app, {});
      expect(expectCleanProblem(response, 503).code).toBe('DATABASE_UNAVAILABLE');
      expect(response.headers['retry-after']).toBe('5');
    });

    test('claiming the key hits a bug: 500 INTERNAL_ERROR', async ({ app }) => {
      vi.spyOn(IdempotencyStore.prototype, 'claim').mockRejectedValue(
        failedQuery('insert into "idempotency_key" values ($1)', [25], { code: '42703' }),
      );
      expect(expectCleanProblem(await create(app, {}), 500).code).toBe('INTERNAL_ERROR');
    });
  });

  test("authentication's session lookup fails: 503 DATABASE_UNAVAILABLE", async ({ app }) => {
    for (const code of ['57P01', '57P03', 'CONNECT_TIMEOUT', 'CONNECTION_ACQUIRE_TIMEOUT']) {
      vi.spyOn(app.services.sessions, 'resolve').mockRejectedValueOnce(
        failedQuery('select "token_hash", "member_id" from "auth_session" where "token_hash" = $1', ['hash'], {
          code,
        }),
      );
      const response = await app.inject({ method: 'GET', url: '/api/probe/plain', headers: member.headers });
      expect(expectCleanProblem(response, 503).code, code).toBe('DATABASE_UNAVAILABLE');
    }
  });

  test('the rate-limit store fails: the request is answered as if unlimited (never a raw error)', async ({ app }) => {
    // @fastify/rate-limit's Redis store runs its script through a command it defines on the client.
    const redis = app.redis as unknown as { rateLimit: (...args: unknown[]) => void };
    vi.spyOn(redis, 'rateLimit').mockImplementation((...args: unknown[]) => {
      const callback = args.at(-1) as (error: Error) => void;
      callback(new Error('Connection is closed. redis://127.0.0.1:6379'));
    });
    const response = await app.inject({ method: 'GET', url: '/api/probe/limited', headers: member.headers });
    expect(response.statusCode, response.body).toBe(200);
  });

  describe('an onSend hook fails (the error escapes the error handler)', () => {
    test('on a successful answer, like a database call: 503 DATABASE_UNAVAILABLE, problem+json', async ({ app }) => {
      const response = await app.inject({
        method: 'GET',
        url: '/api/probe/plain',
        headers: { ...member.headers, 'x-fail-on-send': 'database' },
      });
      expect(expectCleanProblem(response, 503).code).toBe('DATABASE_UNAVAILABLE');
      expect(response.headers['retry-after']).toBe('5');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    });

    test('on a successful answer, a bug: 500 INTERNAL_ERROR, problem+json', async ({ app }) => {
      const response = await app.inject({
        method: 'GET',
        url: '/api/probe/plain',
        headers: { ...member.headers, 'x-fail-on-send': 'bug' },
      });
      expect(expectCleanProblem(response, 500).code).toBe('INTERNAL_ERROR');
    });

    test('on an error answer: still problem+json', async ({ app }) => {
      const response = await create(app, { fail: 'bug' }, { 'x-fail-on-send': 'bug' });
      expect(expectCleanProblem(response, 500).code).toBe('INTERNAL_ERROR');
    });
  });

  test('an onResponse hook fails: the answer is unchanged, the log line carries no SQL parameters', async ({ app }) => {
    const lines: unknown[] = [];
    const root = app.log;
    const child = root.child.bind(root);
    vi.spyOn(root, 'child').mockImplementation(((...args: Parameters<typeof root.child>) => {
      const logger = child(...args);
      const error = logger.error.bind(logger);
      logger.error = ((object: unknown, message?: string) => {
        lines.push(object);
        return error(object as never, message as never);
      }) as typeof logger.error;
      return logger;
    }) as typeof root.child);
    const response = await app.inject({
      method: 'GET',
      url: '/api/probe/plain',
      headers: { ...member.headers, 'x-fail-on-response': 'yes' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    await vi.waitFor(() => expect(lines.length).toBeGreaterThan(0));
    const logged = lines.map((line) => {
      const err = (line as { err?: Error }).err;
      return `${err?.message ?? ''} ${JSON.stringify(line)}`;
    });
    expect(logged.join('\n')).toMatch(/Failed query: insert into "request_log"/);
    expect(logged.join('\n')).not.toMatch(/params|secret-parameter/);
  });

  test('the request log line itself fails: the answer is unchanged and nothing is left unhandled', async ({ app }) => {
    const root = app.log;
    const child = root.child.bind(root);
    vi.spyOn(root, 'child').mockImplementation(((...args: Parameters<typeof root.child>) => {
      const logger = child(...args);
      const info = logger.info.bind(logger);
      let failed = false;
      // The onResponse hook's line fails (once: the log controller writes its own line afterwards).
      logger.info = ((object: unknown, message?: string) => {
        if (message === 'request' && !failed) {
          failed = true;
          throw failedQuery('insert into "request_log" values ($1)', [1], connectionRefused);
        }
        return info(object as never, message as never);
      }) as typeof logger.info;
      return logger;
    }) as typeof root.child);
    const response = await app.inject({ method: 'GET', url: '/api/probe/plain', headers: member.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
  });
});
