import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AuthLevel, authLevels, CONTRACT_VERSION, routeAuth } from '../src/index.js';
import { routes, signature } from './routes.js';

const statuses = (r: (typeof routes)[number]) => Object.keys(r.route.responses).map(Number);

describe('route metadata', () => {
  it('gives every route an auth level', () => {
    expect(routes.length).toBeGreaterThan(100);
    for (const r of routes) {
      const auth = (r.route.metadata as { auth?: unknown } | undefined)?.auth;
      expect(authLevels, r.key).toContain(auth);
      expect(routeAuth(r.route)).toBe(auth);
    }
  });

  it('routeAuth throws for a route without metadata', () => {
    expect(() => routeAuth({ path: '/x' })).toThrow(/metadata\.auth/);
  });

  it('uses full /api paths, unique per method', () => {
    const seen = new Set<string>();
    for (const r of routes) {
      expect(r.route.path, r.key).toMatch(/^\/api\/(auth|admin|board|billing|account|fx|images)(\/|$)/);
      const sig = signature(r.method, r.route.path);
      expect(seen.has(sig), sig).toBe(false);
      seen.add(sig);
    }
  });

  it('uses strict status codes and declares a success status', () => {
    for (const r of routes) {
      expect(r.route.strictStatusCodes, r.key).toBe(true);
      expect(
        statuses(r).filter((n) => n < 300),
        `${r.key} success`,
      ).not.toHaveLength(0);
    }
  });

  it('maps the premium-gated areas to premium and the rest of the ledger to login', () => {
    const premium: RegExp[] = [
      /^\/api\/account\/stats\//,
      /^\/api\/account\/budgets/,
      /^\/api\/account\/tags/,
      /^\/api\/account\/ocr\//,
      /^\/api\/account\/(holdings|trades|portfolio|quotes)/,
      /^\/api\/account\/entries\/(notification|:id\/confirm|pending\/count)$/,
      /^\/api\/account\/(backup|restore)$/,
    ];
    for (const r of routes.filter((x) => /^\/api\/(account|fx)\//.test(x.route.path))) {
      const expected: AuthLevel = premium.some((re) => re.test(r.route.path)) ? 'premium' : 'login';
      expect(routeAuth(r.route), signature(r.method, r.route.path)).toBe(expected);
    }
    expect(
      routes.filter((r) => r.route.path.startsWith('/api/account/recurrings')).map((r) => routeAuth(r.route)),
    ).toEqual(['login', 'login', 'login', 'login']);
  });

  it('keeps admin routes admin-only', () => {
    for (const r of routes.filter(
      (x) => x.route.path.startsWith('/api/admin/') || x.route.path.startsWith('/api/board/reports'),
    )) {
      expect(routeAuth(r.route), r.key).toBe('admin');
    }
  });

  it('CONTRACT_VERSION follows package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(CONTRACT_VERSION).toBe(pkg.version);
  });
});
