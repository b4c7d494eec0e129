import { type AuthLevel, authLevels } from '@nestegg/contract';
import type { AppRoute } from '@ts-rest/core';
import { describe, expect } from 'vitest';
import { createMemberWithSession, type TestMember } from '../test/app.js';
import { concretePath, contractRoutes } from '../test/contract-routes.js';
import { apiTest } from '../test/fixtures.js';
import { authLevelOf } from './authentication.js';

type Caller = 'anonymous' | 'FREE' | 'PREMIUM' | 'ADMIN';

/** What each caller gets from a route of each level: 200 means the guard let it through. */
const expected: Record<AuthLevel, Record<Caller, [number, string?]>> = {
  public: { anonymous: [200], FREE: [200], PREMIUM: [200], ADMIN: [200] },
  optional: { anonymous: [200], FREE: [200], PREMIUM: [200], ADMIN: [200] },
  login: { anonymous: [401, 'UNAUTHENTICATED'], FREE: [200], PREMIUM: [200], ADMIN: [200] },
  premium: { anonymous: [401, 'UNAUTHENTICATED'], FREE: [403, 'PREMIUM_REQUIRED'], PREMIUM: [200], ADMIN: [200] },
  admin: {
    anonymous: [401, 'UNAUTHENTICATED'],
    FREE: [403, 'ADMIN_REQUIRED'],
    PREMIUM: [403, 'ADMIN_REQUIRED'],
    ADMIN: [200],
  },
};

const routes = contractRoutes();

const test = apiTest();

describe('authentication guards on every contract route', () => {
  const callers = {} as Record<Exclude<Caller, 'anonymous'>, TestMember>;

  test.beforeAll(async ({ app }) => {
    // Mount every route of the contract under /probe with a handler that only reports it was reached:
    // the guard reads the same route metadata the real routers carry.
    await app.register(async (scope) => {
      for (const route of routes) {
        scope.route({
          method: route.method,
          url: `/probe${route.path}`,
          config: { tsRestRoute: route },
          handler: async (request) => ({ reached: true, memberId: request.session?.memberId ?? null }),
        });
      }
    });
    callers.FREE = await createMemberWithSession(app, { plan: 'FREE' });
    callers.PREMIUM = await createMemberWithSession(app, { plan: 'PREMIUM' });
    callers.ADMIN = await createMemberWithSession(app, { role: 'ADMIN' });
  });

  test('every route declares a known auth level', () => {
    for (const route of routes) {
      expect(authLevels, `${route.method} ${route.path}`).toContain((route.metadata as { auth: string }).auth);
    }
  });

  test.for(['anonymous', 'FREE', 'PREMIUM', 'ADMIN'] as Caller[])(
    '%s callers get what each level allows',
    async (caller, { app }) => {
      const failures: string[] = [];
      for (const route of routes) {
        const level = (route.metadata as { auth: AuthLevel }).auth;
        const [status, code] = expected[level][caller];
        const response = await app.inject({
          method: route.method,
          url: `/probe${concretePath(route.path)}`,
          headers: caller === 'anonymous' ? {} : callers[caller].headers,
        });
        const actualCode = response.statusCode === 200 ? undefined : response.json().code;
        if (response.statusCode !== status || actualCode !== code) {
          failures.push(`${route.method} ${route.path} (${level}): got ${response.statusCode} ${actualCode ?? ''}`);
        }
      }
      expect(failures).toEqual([]);
    },
  );

  test('an unknown or revoked token is treated as anonymous', async ({ app }) => {
    const route = routes.find((candidate) => (candidate.metadata as { auth: string }).auth === 'login') as AppRoute;
    const response = await app.inject({
      method: route.method,
      url: `/probe${concretePath(route.path)}`,
      headers: { authorization: 'Bearer not-a-real-token' },
    });
    expect(response.statusCode).toBe(401);
  });

  test('optional routes see the caller when a token is sent', async ({ app }) => {
    const route = routes.find((candidate) => (candidate.metadata as { auth: string }).auth === 'optional');
    if (!route) return;
    const response = await app.inject({
      method: route.method,
      url: `/probe${concretePath(route.path)}`,
      headers: callers.FREE.headers,
    });
    expect(response.json().memberId).toBe(callers.FREE.id);
  });

  test('routes outside the contract are public and a contract route without a level is admin-only', () => {
    expect(authLevelOf({ routeOptions: { config: {} } } as never)).toBe('public');
    expect(authLevelOf({ routeOptions: { config: { tsRestRoute: { metadata: {} } } } } as never)).toBe('admin');
  });
});
