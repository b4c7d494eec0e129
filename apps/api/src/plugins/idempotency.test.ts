import { IdempotencyHeadersSchema, meta, routerOptions, withCommonProblems } from '@nestegg/contract';
import { initContract } from '@ts-rest/core';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { registerContractRouter } from '../lib/contract-router.js';
import { createMemberWithSession, type TestMember } from '../test/app.js';
import { apiTest } from '../test/fixtures.js';

const c = initContract();
const probe = withCommonProblems(
  c.router(
    {
      create: {
        method: 'POST',
        path: '/api/probe/items',
        headers: IdempotencyHeadersSchema,
        body: z.object({ name: z.string(), fail: z.boolean().optional() }),
        responses: { 201: z.object({ id: z.number(), name: z.string() }) },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

const test = apiTest();

describe('Idempotency-Key', () => {
  let created = 0;
  let failuresLeft = 0;
  let member: TestMember;
  let other: TestMember;

  test.beforeAll(async ({ app }) => {
    await app.register(async (scope) => {
      registerContractRouter(scope, probe, {
        create: async ({ body }) => {
          if (body.fail && failuresLeft-- > 0) throw new Error('transient failure');
          await new Promise((resolve) => setTimeout(resolve, 50));
          created += 1;
          return { status: 201, body: { id: created, name: body.name } };
        },
      });
    });
    member = await createMemberWithSession(app);
    other = await createMemberWithSession(app);
  });

  const post = (app: FastifyInstance, caller: TestMember, key: string | undefined, body: object) =>
    app.inject({
      method: 'POST',
      url: '/api/probe/items',
      headers: { ...caller.headers, ...(key ? { 'idempotency-key': key } : {}) },
      payload: body,
    });

  test('answers a retry with the first answer instead of creating again', async ({ app }) => {
    const before = created;
    const first = await post(app, member, 'retry-key-0001', { name: 'coffee' });
    const retry = await post(app, member, 'retry-key-0001', { name: 'coffee' });
    expect(first.statusCode).toBe(201);
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual(first.json());
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(created - before).toBe(1);
  });

  test('refuses the same key with another body with 422', async ({ app }) => {
    await post(app, member, 'reuse-key-0001', { name: 'tea' });
    const reused = await post(app, member, 'reuse-key-0001', { name: 'cake' });
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  test('creates once when the same request arrives ten times at once', async ({ app }) => {
    const before = created;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(app, member, 'parallel-key-01', { name: 'rent' })),
    );
    expect(created - before).toBe(1);
    for (const answer of answers) {
      expect([201, 409]).toContain(answer.statusCode);
      if (answer.statusCode === 409) expect(answer.json().code).toBe('IDEMPOTENCY_KEY_IN_USE');
    }
  });

  test('keeps keys apart per member, and requests without a key are not deduplicated', async ({ app }) => {
    const before = created;
    await post(app, member, 'shared-key-0001', { name: 'a' });
    const theirs = await post(app, other, 'shared-key-0001', { name: 'a' });
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    await post(app, member, undefined, { name: 'b' });
    await post(app, member, undefined, { name: 'b' });
    expect(created - before).toBe(4);
  });

  test('releases the key after a server error, so the retry runs', async ({ app }) => {
    failuresLeft = 1;
    const before = created;
    const failed = await post(app, member, 'failing-key-001', { name: 'x', fail: true });
    expect(failed.statusCode).toBe(500);
    const retried = await post(app, member, 'failing-key-001', { name: 'x', fail: true });
    expect(retried.statusCode).toBe(201);
    expect(created - before).toBe(1);
  });
});
