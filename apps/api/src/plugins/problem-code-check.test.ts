import { meta, problems, routerOptions, withCommonProblems } from '@nestegg/contract';
import { initContract } from '@ts-rest/core';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { registerContractRouter } from '../lib/contract-router.js';
import { ConflictError } from '../lib/errors.js';
import { createMemberWithSession, type TestMember } from '../test/app.js';
import { apiTest } from '../test/fixtures.js';
import { undeclaredProblems } from './problem-code-check.js';

const c = initContract();
const probe = withCommonProblems(
  c.router(
    {
      refuse: {
        method: 'GET',
        path: '/api/probe/refusals',
        query: z.object({ code: z.enum(['DUPLICATE_NAME', 'DUPLICATE_BUDGET']) }),
        responses: { 200: z.object({ ok: z.boolean() }), ...problems('DUPLICATE_NAME') },
        metadata: meta('public'),
      },
    },
    routerOptions,
  ),
);

const test = apiTest();

describe('problem codes per route (C32, C33)', () => {
  let member: TestMember;

  test.beforeAll(async ({ app }) => {
    await app.register(async (scope) => {
      registerContractRouter(scope, probe, {
        refuse: async ({ query }) => {
          throw new ConflictError(query.code, 'refused');
        },
      });
    });
    member = await createMemberWithSession(app);
  });

  test('records an answer whose code the route does not declare for its status, and leaves the answer as it was', async ({
    app,
  }) => {
    const declared = await app.inject({ method: 'GET', url: '/api/probe/refusals?code=DUPLICATE_NAME' });
    expect(declared.json()).toMatchObject({ status: 409, code: 'DUPLICATE_NAME' });
    expect(undeclaredProblems()).toEqual([]);

    const undeclared = await app.inject({ method: 'GET', url: '/api/probe/refusals?code=DUPLICATE_BUDGET' });
    expect(undeclared.json()).toMatchObject({ status: 409, code: 'DUPLICATE_BUDGET' });
    expect(undeclaredProblems().splice(0)).toEqual([
      'GET /api/probe/refusals answered 409 DUPLICATE_BUDGET; it declares DUPLICATE_NAME for 409',
    ]);
  });

  test('declares the body codes on a method that carries a body, even where the route takes none', async ({ app }) => {
    const malformed = await app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { ...member.headers, 'content-type': 'application/json' },
      payload: '{',
    });
    expect(malformed.json()).toMatchObject({ status: 400, code: 'MALFORMED_JSON' });

    const wrongType = await app.inject({
      method: 'DELETE',
      url: '/api/auth/sessions',
      headers: { ...member.headers, 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    expect(wrongType.json()).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});
