import { Writable } from 'node:stream';
import { withCommonProblems } from '@nestegg/contract';
import { initContract } from '@ts-rest/core';
import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { registerContractRouter } from '../lib/contract-router.js';
import { ConflictError } from '../lib/errors.js';
import { apiTest } from '../test/fixtures.js';

const logLines: Record<string, unknown>[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});

const c = initContract();
const probeContract = withCommonProblems(
  c.router({
    create: {
      method: 'POST',
      path: '/api/probe/things',
      body: z.object({ name: z.string().min(1), count: z.number().int() }),
      responses: { 201: z.object({ name: z.string() }) },
      metadata: { auth: 'public' } as const,
    },
  }),
);

const test = apiTest({}, { logger: { level: 'error', stream: logStream } });

describe('error handler', () => {
  test.beforeAll(async ({ app }) => {
    await app.register(async (scope) => {
      registerContractRouter(scope, probeContract, {
        create: async ({ body }) => ({ status: 201, body: { name: body.name } }),
      });
      scope.get('/api/probe/crash', async () => {
        throw new Error('secret connection string postgres://user:pw@db');
      });
      scope.get('/api/probe/nul', async () => {
        await scope.db.execute(sql`select ${'a\u0000b'}::text`);
      });
      scope.get('/api/probe/failing-query', async () => {
        await scope.db.execute(sql`select * from no_such_table where email = ${'leak@example.com'}`);
      });
      scope.get('/api/probe/conflict', async () => {
        throw new ConflictError('EMAIL_TAKEN', 'That name is taken.');
      });
      scope.get('/api/probe/wrapped-conflict', async () => {
        // As drizzle wraps what a query's hook threw: "Failed query: …" with the typed error as its cause.
        throw new Error('Failed query: update idempotency_key set … params: 7,secret-key', {
          cause: new ConflictError('IDEMPOTENCY_KEY_IN_USE', 'Another request holds this key.'),
        });
      });
    });
  });

  test('answers malformed JSON with 400 MALFORMED_JSON as problem+json', async ({ app }) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/probe/things',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "a",',
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json()).toMatchObject({
      status: 400,
      code: 'MALFORMED_JSON',
      type: 'about:blank',
      title: 'Bad Request',
    });
  });

  test('answers a body that breaks the contract with 400 VALIDATION_FAILED listing each field', async ({ app }) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/probe/things',
      payload: { name: '', count: 1.5 },
    });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.errors.map((issue: { path: string }) => issue.path).sort()).toEqual(['body.count', 'body.name']);
  });

  test('answers an unknown route with 404 NOT_FOUND', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/api/nowhere?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json()).toMatchObject({ code: 'NOT_FOUND', instance: '/api/nowhere' });
  });

  test('turns a typed service error into its status and stable code', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/api/probe/conflict' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'EMAIL_TAKEN', detail: 'That name is taken.' });
  });

  test('finds a typed error that a query wrapper wrapped, and answers it without the wrapper text', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/api/probe/wrapped-conflict' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(response.body).not.toMatch(/Failed query|secret-key/);
  });

  test('answers an unhandled error with 500, logs method and path, and shows no internals', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/api/probe/crash' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    expect(response.body).not.toContain('secret');
    expect(response.body).not.toContain('postgres://');
    const logged = logLines.find((line) => line.path === '/api/probe/crash');
    expect(logged).toMatchObject({ method: 'GET', path: '/api/probe/crash', level: 50 });
  });

  test('echoes a request id on every response', async ({ app }) => {
    const response = await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(response.headers['x-request-id']).toBe('abc-123');
  });

  test('answers a value the database refuses (NUL in text) with 400, not 500', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/api/probe/nul' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  test('logs a failed query with its statement and SQLSTATE but never its parameters', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/api/probe/failing-query' });
    expect(response.statusCode).toBe(500);
    const logged = logLines.find((line) => line.path === '/api/probe/failing-query');
    expect(logged).toBeDefined();
    expect(JSON.stringify(logged)).not.toContain('leak@example.com');
    expect(logged).toMatchObject({ err: { sqlState: '42P01' } });
  });
});
