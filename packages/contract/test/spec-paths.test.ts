/**
 * The paths SPEC.md names, with the bare ones resolved by decision D1
 * (`/auth/points` → `/api/auth/points`, `/entries/notification` → `/api/account/entries/notification`,
 * `/posts/{id}/notice` → `/api/board/posts/{id}/notice`, `/trades/{id}` → `/api/account/trades/{id}`),
 * and the auth the spec's Auth column gives them (P public, L login, A admin, PR premium).
 */
import { describe, expect, it } from 'vitest';
import { type AuthLevel, routeAuth } from '../src/index.js';
import { routes, signature } from './routes.js';

const P = 'public';
const L = 'login';
const A = 'admin';
const PR = 'premium';
const ANY = null; // the spec leaves the level open ("—") or only names the area

const specPaths: Array<[string, AuthLevel | null]> = [
  // Authentication and member
  ['POST /api/auth/idptwo', P],
  ['POST /api/auth/idpone', P],
  ['GET /api/auth/idpone-client-id', P],
  ['PUT /api/auth/password', L],
  ['POST /api/auth/verify-password', L],
  ['PUT /api/auth/profile', L],
  ['GET /api/auth/profile', L],
  ['PUT /api/auth/profile-image', L],
  ['GET /api/auth/points', L],
  ['GET /api/auth/point-history', L],
  ['DELETE /api/auth/me', L],
  ['GET /api/auth/signup-enabled', P],
  // D3: sign-up, login, logout (public per the Authentication part)
  ['POST /api/auth/signup', P],
  ['POST /api/auth/login', P],
  ['POST /api/auth/logout', ANY],
  // Billing
  ['GET /api/billing/products', L],
  ['POST /api/billing/store/verify', L],
  ['GET /api/billing/subscription', L],
  ['POST /api/billing/cancel', L],
  ['POST /api/billing/resume', L],
  ['POST /api/billing/restore', L],
  ['POST /api/billing/store/rtdn', P],
  // Admin
  ['GET /api/admin/members', A],
  ['PUT /api/admin/members/{id}/plan', A],
  ['DELETE /api/admin/members/{id}', A],
  ['GET /api/admin/default-categories', A],
  ['POST /api/admin/default-categories', A],
  ['PUT /api/admin/default-categories/{id}', A],
  ['DELETE /api/admin/default-categories/{id}', A],
  ['GET /api/board/reports', A],
  ['POST /api/board/reports/dismiss', A],
  // Board
  ['GET /api/board/posts', ANY],
  ['POST /api/board/posts/{id}/vote', L],
  ['POST /api/board/comments/{id}/vote', L],
  ['GET /api/board/posts/{id}/recommenders', L],
  ['POST /api/board/posts/{id}/report', L],
  ['POST /api/board/comments/{id}/report', L],
  ['POST /api/board/posts/{id}/notice', A],
  ['POST /api/board/posts/{id}/unnotice', A],
  ['GET /api/board/my/posts', L],
  ['GET /api/board/my/comments', L],
  ['GET /api/board/tag-groups', L],
  ['POST /api/board/images', L],
  ['GET /api/images/{id}', P],
  // Ledger
  ['GET /api/account/entries', L],
  ['POST /api/account/entries', L],
  ['PUT /api/account/entries/{id}', L],
  ['DELETE /api/account/entries/{id}', L],
  ['POST /api/account/entries/parse', L],
  ['POST /api/account/entries/notification', PR],
  ['POST /api/account/entries/{id}/confirm', PR],
  ['GET /api/account/entries/pending/count', PR],
  ['GET /api/account/quick-entries', L],
  ['POST /api/account/quick-entries', L],
  ['PUT /api/account/quick-entries/{id}', L],
  ['DELETE /api/account/quick-entries/{id}', L],
  ['GET /api/account/wallets', L],
  ['POST /api/account/wallets', L],
  ['PUT /api/account/wallets/{id}', L],
  ['DELETE /api/account/wallets/{id}', L],
  ['PUT /api/account/wallets/reorder', L],
  ['GET /api/account/networth/trend', L],
  ['GET /api/account/budgets', PR],
  ['POST /api/account/budgets', PR],
  ['PUT /api/account/budgets/{id}', PR],
  ['DELETE /api/account/budgets/{id}', PR],
  ['POST /api/account/budgets/copy', PR],
  ['GET /api/account/budgets/onetime', PR],
  ['POST /api/account/budgets/onetime', PR],
  ['PUT /api/account/budgets/onetime/{id}', PR],
  ['DELETE /api/account/budgets/onetime/{id}', PR],
  ['GET /api/account/budgets/income', PR],
  ['PUT /api/account/budgets/income', PR],
  ['GET /api/account/categories', L],
  ['POST /api/account/categories', L],
  ['PUT /api/account/categories/{id}', L],
  ['DELETE /api/account/categories/{id}', L],
  ['PUT /api/account/categories/reorder', L],
  ['POST /api/account/categories/import', L],
  ['GET /api/account/tags', PR],
  ['POST /api/account/tags', PR],
  ['PUT /api/account/tags/{id}', PR],
  ['DELETE /api/account/tags/{id}', PR],
  ['POST /api/account/tags/reorder', PR],
  ['GET /api/account/recurrings', L],
  ['POST /api/account/recurrings', L],
  ['PUT /api/account/recurrings/{id}', L],
  ['DELETE /api/account/recurrings/{id}', L],
  ['PUT /api/account/trades/{id}', PR],
  ['GET /api/account/holdings', PR],
  ['GET /api/account/trades', PR],
  ['GET /api/account/portfolio', PR],
  ['POST /api/account/ocr/receipt', PR],
  ['POST /api/account/restore', PR],
  ['GET /api/fx/rate', L],
];

describe('paths named in SPEC.md', () => {
  const bySignature = new Map(routes.map((r) => [signature(r.method, r.openApiPath), r]));

  it.each(specPaths)('%s exists with the spec auth', (sig, auth) => {
    const route = bySignature.get(sig);
    expect(route, `${sig} missing from the contract`).toBeDefined();
    if (auth) expect(routeAuth(route!.route)).toBe(auth);
  });

  it('personalises the anonymous board reads', () => {
    expect(routeAuth(bySignature.get('GET /api/board/posts')!.route)).toBe('optional');
    expect(routeAuth(bySignature.get('GET /api/board/posts/{id}')!.route)).toBe('optional');
  });
});
