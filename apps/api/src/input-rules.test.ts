/**
 * Issue 20: the server accepts every value the OpenAPI document allows and refuses, with a problem that names the
 * field, what it forbids (C26–C31).
 */
import { contract } from '@nestegg/contract';
import { buildOpenApiDocument } from '@nestegg/openapi';
import { isAppRoute } from '@ts-rest/core';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { apiTest, test } from './test/fixtures.js';

/** The api with CORS on: its preflight route (`OPTIONS *`) serves every path. */
const corsTest = apiTest({ CORS_ORIGINS: 'https://app.example.test' });

type Json = Record<string, unknown>;

const call = async (
  app: FastifyInstance,
  token: string | undefined,
  method: string,
  url: string,
  payload?: unknown,
) => {
  const response = await app.inject({
    method: method as 'GET',
    url,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });
  return { status: response.statusCode, body: response.body ? (JSON.parse(response.body) as Json) : {}, response };
};

const problemPaths = (body: Json): string[] =>
  ((body.errors as Array<{ path: string }> | undefined) ?? []).map((error) => error.path);

const LOW = '0001-01-01';
const HIGH = '9999-12-31';

describe('dates: the years 0001..9999, as the document says (C26)', () => {
  test('entries: create and list filters', async ({ app, premium }) => {
    for (const date of [LOW, HIGH]) {
      const created = await call(app, premium.token, 'POST', '/api/account/entries', {
        type: 'EXPENSE',
        amount: 1000,
        date,
      });
      expect(created.status, `${date} ${JSON.stringify(created.body)}`).toBe(201);
      expect(created.body.date).toBe(date);
    }
    const listed = await call(app, premium.token, 'GET', `/api/account/entries?from=${LOW}&to=${HIGH}`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect((listed.body.items as unknown[]).length).toBe(2);
    const refused = await call(app, premium.token, 'POST', '/api/account/entries', {
      type: 'EXPENSE',
      amount: 1,
      date: '0000-12-31',
    });
    expect(refused.status).toBe(400);
    expect(problemPaths(refused.body)).toEqual(['body.date']);
    const refusedQuery = await call(app, premium.token, 'GET', '/api/account/entries?from=0000-01-01');
    expect(problemPaths(refusedQuery.body)).toEqual(['query.from']);
  });

  test('one-time budgets, statistics and trades', async ({ app, premium }) => {
    const budget = await call(app, premium.token, 'POST', '/api/account/budgets/onetime', {
      name: 'Long trip',
      amount: 100,
      startDate: LOW,
      endDate: HIGH,
    });
    expect(budget.status, JSON.stringify(budget.body)).toBe(201);
    for (const url of [
      `/api/account/budgets/onetime?from=${LOW}&to=${HIGH}`,
      `/api/account/stats/merchants?from=${LOW}&to=${HIGH}`,
    ]) {
      const answer = await call(app, premium.token, 'GET', url);
      expect(answer.status, `${url} ${JSON.stringify(answer.body)}`).toBe(200);
    }
    const holding = await call(app, premium.token, 'POST', '/api/account/holdings', { name: 'Index fund' });
    expect(holding.status, JSON.stringify(holding.body)).toBe(201);
    for (const tradedAt of [LOW, HIGH]) {
      const trade = await call(app, premium.token, 'POST', '/api/account/trades', {
        holdingId: holding.body.id,
        side: 'BUY',
        quantity: '0.000001',
        price: 1,
        tradedAt,
      });
      expect(trade.status, `${tradedAt} ${JSON.stringify(trade.body)}`).toBe(201);
    }
    const trades = await call(app, premium.token, 'GET', `/api/account/trades?from=${LOW}&to=${HIGH}`);
    expect(trades.status).toBe(200);
    for (const [url, payload, field] of [
      [
        '/api/account/budgets/onetime',
        { name: 'x', amount: 1, startDate: '0000-01-01', endDate: HIGH },
        'body.startDate',
      ],
      [
        '/api/account/trades',
        { holdingId: holding.body.id, side: 'BUY', quantity: '1', price: 1, tradedAt: '0000-01-01' },
        'body.tradedAt',
      ],
    ] as const) {
      const refused = await call(app, premium.token, 'POST', url, payload);
      expect(refused.status, url).toBe(400);
      expect(problemPaths(refused.body), url).toContain(field);
    }
  });
});

describe('whitespace-only text is refused for the pattern the document declares (C27)', () => {
  const blank = ' \t\n\u3000 ';
  test.for([
    ['POST', '/api/account/quick-entries', { name: blank }, 'body.name'],
    ['POST', '/api/account/recurrings', { name: blank }, 'body.name'],
    ['POST', '/api/account/tags', { name: blank }, 'body.name'],
    ['POST', '/api/account/wallets', { name: blank, type: 'CASH' }, 'body.name'],
    ['POST', '/api/board/posts', { category: 'community', title: blank, body: 'text' }, 'body.title'],
  ] as const)('%s %s', async ([method, url, payload, field], { app, premium }) => {
    const refused = await call(app, premium.token, method, url, payload);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('VALIDATION_FAILED');
    const issues = refused.body.errors as Array<{ path: string; message: string }>;
    expect(issues.filter((issue) => issue.path === field).map((issue) => issue.message)).toContain(
      'must contain a character other than white space',
    );
  });
});

describe('lengths count characters, as maxLength does (C28)', () => {
  test('a name of astral characters at the limit is accepted, one more is refused', async ({ app, premium }) => {
    const astral = '\u{1F331}'; // a seedling: two UTF-16 units, one character
    const ok = await call(app, premium.token, 'POST', '/api/account/tags', { name: astral.repeat(30) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.name).toBe(astral.repeat(30));
    const wallet = await call(app, premium.token, 'POST', '/api/account/quick-entries', { name: astral.repeat(50) });
    expect(wallet.status, JSON.stringify(wallet.body)).toBe(201);
    const tooLong = await call(app, premium.token, 'POST', '/api/account/tags', { name: astral.repeat(31) });
    expect(tooLong.status).toBe(400);
    expect(problemPaths(tooLong.body)).toEqual(['body.name']);
  });
});

describe('uniqueness, ranges and e-mail the document declares (C29)', () => {
  test('reorders refuse repeated ids; tag groups repeated boards', async ({ app, premium, admin }) => {
    const tag = await call(app, premium.token, 'POST', '/api/account/tags', { name: 'once' });
    const reorder = await call(app, premium.token, 'POST', '/api/account/tags/reorder', {
      ids: [tag.body.id, tag.body.id],
    });
    expect(reorder.status).toBe(400);
    expect(problemPaths(reorder.body)).toEqual(['body.ids']);
    const group = await call(app, admin.token, 'POST', '/api/board/tag-groups', {
      name: 'g',
      boards: ['tips', 'tips'],
    });
    expect(group.status).toBe(400);
    expect(problemPaths(group.body)).toEqual(['body.boards']);
  });

  test('a trade quantity of zero is refused, the smallest positive one accepted', async ({ app, premium }) => {
    const holding = await call(app, premium.token, 'POST', '/api/account/holdings', { name: 'Fund' });
    for (const quantity of ['0', '0.000000', 0]) {
      const refused = await call(app, premium.token, 'POST', '/api/account/trades', {
        holdingId: holding.body.id,
        side: 'BUY',
        quantity,
        price: 1,
        tradedAt: '2026-01-02',
      });
      expect(refused.status, String(quantity)).toBe(400);
    }
  });

  test('sign-up takes the e-mail syntax the pattern declares, around spaces and in any case', async ({ app }) => {
    const email = ` Saver.${Date.now()}+Tag@Example.COM `;
    const signup = await call(app, undefined, 'POST', '/api/auth/signup', {
      email,
      password: 'correct horse battery',
      displayName: 'Saver',
    });
    expect(signup.status, JSON.stringify(signup.body)).toBe(201);
    expect(signup.body.email).toBe(email.trim().toLowerCase());
    expect(signup.response.headers.location).toBe('/api/auth/profile');
    for (const refused of ['"q"@example.com', 'a..b@example.com', 'a@example']) {
      const answer = await call(app, undefined, 'POST', '/api/auth/signup', {
        email: refused,
        password: 'correct horse battery',
        displayName: 'Saver',
      });
      expect(answer.status, refused).toBe(400);
    }
  });
});

const hasControl = (s: string): boolean => [...s].some((c) => c.charCodeAt(0) < 0x20);

describe('problems never echo raw input (C30)', () => {
  test('a NUL in an enum value is quoted as \\u0000', async ({ app, premium }) => {
    const answer = await call(app, premium.token, 'GET', '/api/account/entries?type=IN%00COME');
    expect(answer.status).toBe(400);
    for (const error of answer.body.errors as Array<{ message: string; path: string }>) {
      expect(hasControl(error.message), error.message).toBe(false);
      expect(hasControl(error.path)).toBe(false);
    }
    const body = await call(app, premium.token, 'POST', '/api/account/entries', {
      type: 'EXP\u0000ENSE',
      amount: 1,
      date: '2026-01-01',
    });
    expect(body.status).toBe(400);
    const messages = (body.body.errors as Array<{ message: string }>).map((e) => e.message).join(' ');
    expect(hasControl(messages), messages).toBe(false);
    expect(messages).toContain('\\u0000');
  });
});

const flatRoutes = (router: object): Array<{ method: string; path: string }> =>
  Object.values(router).flatMap((value) => (isAppRoute(value) ? [value] : flatRoutes(value as object)));

/** One digit per segment, 0 literal and 1 `{param}`: the router prefers the smaller (a literal segment). */
const specificity = (template: string) =>
  template
    .split('/')
    .map((segment) => (segment.startsWith('{') ? '1' : '0'))
    .join('');

describe('unlisted methods answer 405 with Allow (C30)', () => {
  test('every documented path, for a method it does not list', async ({ app }) => {
    const document = buildOpenApiDocument();
    const paths = Object.entries(document.paths);
    expect(paths.length).toBeGreaterThan(50);
    const templates = paths.map(([template, item]) => ({
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      rank: specificity(template),
      methods: Object.keys(item as object).map((m) => m.toUpperCase()),
    }));
    for (const [template] of paths) {
      const url = template.replace(/\{[^}]+\}/g, '1');
      // The methods of this URL are its most specific template's: a literal path is never another route's `{id}` (C48).
      const owner = templates.filter((t) => t.pattern.test(url)).sort((a, b) => a.rank.localeCompare(b.rank))[0]!;
      const listed = owner.methods;
      const unlisted = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((m) => !listed.includes(m))!;
      const answer = await app.inject({ method: unlisted as 'PUT', url });
      expect(answer.statusCode, `${unlisted} ${template}`).toBe(405);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.json().code).toBe('METHOD_NOT_ALLOWED');
      const allow = String(answer.headers.allow).split(', ');
      for (const method of listed) expect(allow, `${template}`).toContain(method);
      expect(allow).not.toContain(unlisted);
    }
    expect(flatRoutes(contract).length).toBeGreaterThan(50);
    const trace = await app.inject({ method: 'TRACE' as 'GET', url: '/api/account/entries' });
    expect(trace.statusCode).toBe(405);
    expect(trace.headers.allow).toBe('GET, HEAD, POST');
  });

  test('an unknown path still answers 404', async ({ app }) => {
    const answer = await app.inject({ method: 'TRACE', url: '/api/no-such-thing' });
    expect(answer.statusCode).toBe(404);
    expect(answer.headers.allow).toBeUndefined();
  });

  corsTest('with CORS on: 405 on a served path, 404 elsewhere', async ({ app }) => {
    const unknown = await app.inject({ method: 'GET', url: '/api/no-such-thing' });
    expect(unknown.statusCode).toBe(404);
    const patch = await app.inject({ method: 'PATCH', url: '/api/account/tags' });
    expect(patch.statusCode).toBe(405);
    expect(patch.headers.allow).toBe('GET, HEAD, POST');
  });
});

describe('201 answers carry Location (C31)', () => {
  test('created resources name their place', async ({ app, premium }) => {
    const entry = await call(app, premium.token, 'POST', '/api/account/entries', {
      type: 'EXPENSE',
      amount: 5,
      date: '2026-01-02',
    });
    expect(entry.response.headers.location).toBe(`/api/account/entries/${entry.body.id}`);
    const read = await call(app, premium.token, 'GET', String(entry.response.headers.location));
    expect(read.status).toBe(200);
    const wallet = await call(app, premium.token, 'POST', '/api/account/wallets', { name: 'Cash', type: 'CASH' });
    expect(wallet.response.headers.location).toBe(`/api/account/wallets/${wallet.body.id}`);
    const post = await call(app, premium.token, 'POST', '/api/board/posts', {
      category: 'community',
      title: 'Hello',
      body: 'First post',
    });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    expect(post.response.headers.location).toBe(`/api/board/posts/${post.body.id}`);
    const comment = await call(app, premium.token, 'POST', `/api/board/posts/${post.body.id}/comments`, {
      body: 'A comment',
    });
    expect(comment.status, JSON.stringify(comment.body)).toBe(201);
    expect(comment.response.headers.location).toBe(`/api/board/comments/${comment.body.id}`);
  });
});
