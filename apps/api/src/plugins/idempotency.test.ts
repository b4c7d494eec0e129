import { IdempotencyHeadersSchema, meta, routerOptions, withCommonProblems } from '@nestegg/contract';
import { initContract } from '@ts-rest/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerContractRouter } from '../lib/contract-router.js';
import { createMemberWithSession, type TestMember, useTestApp } from '../test/app.js';

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

describe('Idempotency-Key', () => {
  const app = useTestApp();
  let created = 0;
  let failuresLeft = 0;
  let member: TestMember;
  let other: TestMember;

  beforeAll(async () => {
    await app.current.register(async (scope) => {
      registerContractRouter(scope, probe, {
        create: async ({ body }) => {
          if (body.fail && failuresLeft-- > 0) throw new Error('transient failure');
          await new Promise((resolve) => setTimeout(resolve, 50));
          created += 1;
          return { status: 201, body: { id: created, name: body.name } };
        },
      });
    });
    member = await createMemberWithSession(app.current);
    other = await createMemberWithSession(app.current);
  });

  const post = (caller: TestMember, key: string | undefined, body: object) =>
    app.current.inject({
      method: 'POST',
      url: '/api/probe/items',
      headers: { ...caller.headers, ...(key ? { 'idempotency-key': key } : {}) },
      payload: body,
    });

  it('answers a retry with the first answer instead of creating again', async () => {
    const before = created;
    const first = await post(member, 'retry-key-0001', { name: 'coffee' });
    const retry = await post(member, 'retry-key-0001', { name: 'coffee' });
    expect(first.statusCode).toBe(201);
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual(first.json());
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(created - before).toBe(1);
  });

  it('refuses the same key with another body with 422', async () => {
    await post(member, 'reuse-key-0001', { name: 'tea' });
    const reused = await post(member, 'reuse-key-0001', { name: 'cake' });
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('creates once when the same request arrives ten times at once', async () => {
    const before = created;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(member, 'parallel-key-01', { name: 'rent' })),
    );
    expect(created - before).toBe(1);
    for (const answer of answers) {
      expect([201, 409]).toContain(answer.statusCode);
      if (answer.statusCode === 409) expect(answer.json().code).toBe('IDEMPOTENCY_KEY_IN_USE');
    }
  });

  it('keeps keys apart per member, and requests without a key are not deduplicated', async () => {
    const before = created;
    await post(member, 'shared-key-0001', { name: 'a' });
    const theirs = await post(other, 'shared-key-0001', { name: 'a' });
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    await post(member, undefined, { name: 'b' });
    await post(member, undefined, { name: 'b' });
    expect(created - before).toBe(4);
  });

  it('releases the key after a server error, so the retry runs', async () => {
    failuresLeft = 1;
    const before = created;
    const failed = await post(member, 'failing-key-001', { name: 'x', fail: true });
    expect(failed.statusCode).toBe(500);
    const retried = await post(member, 'failing-key-001', { name: 'x', fail: true });
    expect(retried.statusCode).toBe(201);
    expect(created - before).toBe(1);
  });
});
