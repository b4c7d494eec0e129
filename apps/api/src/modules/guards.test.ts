import type { AuthLevel } from '@nestegg/contract';
import { member } from '@nestegg/db';
import type { AppRoute } from '@ts-rest/core';
import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { createMemberWithSession } from '../test/app.js';
import { signUpAndLogIn } from '../test/auth-helpers.js';
import { concretePath, contractRoutes } from '../test/contract-routes.js';
import { apiTest } from '../test/fixtures.js';

type Caller = 'FREE' | 'PREMIUM' | 'ADMIN';
const GUARD_CODES = ['UNAUTHENTICATED', 'ADMIN_REQUIRED', 'PREMIUM_REQUIRED'];
const levelOf = (route: AppRoute) => (route.metadata as { auth: AuthLevel }).auth;

/** What the guard must answer a caller on a route of that level; null means it must let the caller through. */
function guardAnswer(level: AuthLevel, caller: Caller | 'anonymous'): string | null {
  if (level === 'public' || level === 'optional') return null;
  if (caller === 'anonymous') return 'UNAUTHENTICATED';
  if (level === 'admin' && caller !== 'ADMIN') return 'ADMIN_REQUIRED';
  if (level === 'premium' && caller === 'FREE') return 'PREMIUM_REQUIRED';
  return null;
}

const servedRoutesTest = apiTest();

describe('guards on every route the api serves', () => {
  const test = servedRoutesTest;
  let served: AppRoute[] = [];

  test.beforeAll(async ({ app }) => {
    await app.ready();
    served = contractRoutes();
  });

  test('serves every route of the contract', ({ app }) => {
    const missing = served.filter((route) => !app.hasRoute({ method: route.method, url: route.path }));
    expect(missing.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  test.for(['anonymous', 'FREE', 'PREMIUM', 'ADMIN'] as const)(
    '%s callers get exactly what each level allows',
    async (caller, { app }) => {
      const failures: string[] = [];
      for (const route of served) {
        // A fresh member per call: some routes log out or delete the caller.
        const headers =
          caller === 'anonymous'
            ? {}
            : (await createMemberWithSession(app, caller === 'ADMIN' ? { role: 'ADMIN' } : { plan: caller })).headers;
        const response = await app.inject({
          method: route.method,
          url: concretePath(route.path),
          headers,
          remoteAddress: '10.8.0.1',
        });
        const code = response.statusCode >= 400 ? (response.json().code as string) : null;
        const expected = guardAnswer(levelOf(route), caller);
        const got = code && GUARD_CODES.includes(code) ? code : null;
        if (got !== expected)
          failures.push(
            `${route.method} ${route.path}: expected ${expected ?? 'pass'}, got ${response.statusCode} ${code ?? ''}`,
          );
      }
      expect(failures).toEqual([]);
    },
  );
});

const memberAreaTest = apiTest();

describe('no member reaches another member through the member area', () => {
  const test = memberAreaTest;

  test("leaves another member's row untouched whatever the caller does to their own account", async ({ app }) => {
    const caller = await signUpAndLogIn(app, { password: 'caller password' });
    const bystander = await signUpAndLogIn(app);
    const [before] = await app.db.select().from(member).where(eq(member.id, bystander.member.id));

    const { headers } = caller;
    await app.inject({ method: 'PUT', url: '/api/auth/profile', headers, payload: { displayName: 'Changed' } });
    await app.inject({ method: 'PUT', url: '/api/auth/profile-image', headers, payload: { dataUrl: '' } });
    await app.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers,
      payload: { currentPassword: 'caller password', newPassword: 'another password' },
    });
    const profile = await app.inject({ method: 'GET', url: '/api/auth/profile', headers });
    expect(profile.json().id).toBe(caller.member.id);
    await app.inject({ method: 'DELETE', url: '/api/auth/me', headers });

    const [after] = await app.db.select().from(member).where(eq(member.id, bystander.member.id));
    expect(after).toEqual(before);
    expect((await app.inject({ method: 'GET', url: '/api/auth/profile', headers: bystander.headers })).json().id).toBe(
      bystander.member.id,
    );
  });
});
