/**
 * Decision C50: every problem answer goes through the error handler's one path. Its status follows from its code,
 * and `Retry-After` is written there alone, from the error's `retryAfterSeconds`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StoreUnavailableError } from '@nestegg/membership';
import type { FastifyInstance } from 'fastify';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  type AppError,
  DatabaseUnavailableError,
  OverloadedError,
  RateLimitedError,
  ServiceUnavailableError,
} from '../lib/errors.js';
import { problemFor } from '../modules/billing/membership/problems.js';
import { ImageQuotaExceededError } from '../modules/board/images/board-images.service.js';
import { ReceiptQuotaExceededError } from '../modules/ledger/receipts/receipt-quota.js';
import { PasswordQueueFullError } from '../modules/members/auth/passwords.js';
import { apiTest } from '../test/fixtures.js';
import { problemInsteadOf } from './error-handler.js';

const apiSource = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'test' ? [] : sourceFiles(path);
    const isSource = entry.endsWith('.ts') && !entry.endsWith('.test.ts') && !entry.endsWith('.fixture.ts');
    return isSource ? [path] : [];
  });
}

function nodesOf(file: string): ts.Node[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const nodes: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    nodes.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return nodes;
}

const where = (node: ts.Node) =>
  `${relative(apiSource, node.getSourceFile().fileName)}:${node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1}`;

const files = sourceFiles(apiSource);

/** Every string in the api's source that names the header (a header name is a string wherever it is written). */
function placesNamingRetryAfter(): string[] {
  return files.flatMap((file) =>
    nodesOf(file)
      .filter((node) => ts.isStringLiteralLike(node) && node.text.toLowerCase() === 'retry-after')
      .map((node) => relative(apiSource, node.getSourceFile().fileName)),
  );
}

const propertyNamed = (node: ts.ObjectLiteralExpression, name: string) =>
  node.properties.find(
    (property): property is ts.PropertyAssignment =>
      ts.isPropertyAssignment(property) && property.name.getText() === name,
  );

/** Object literals that state an HTTP status beside a problem code: `{ status: 405, code: 'METHOD_NOT_ALLOWED' }`. */
function statusesBesideCodes(): string[] {
  return files.flatMap((file) =>
    nodesOf(file)
      .filter(ts.isObjectLiteralExpression)
      .filter((node) => {
        const code = propertyNamed(node, 'code')?.initializer;
        return propertyNamed(node, 'status') && code && ts.isStringLiteralLike(code) && /^[A-Z_]+$/.test(code.text);
      })
      .map(where),
  );
}

describe('one problem path in the source (C50)', () => {
  it('names Retry-After only where the error handler writes it, where CORS exposes it and where the rate limiter leaves it out', () => {
    expect(placesNamingRetryAfter().sort()).toEqual([
      'plugins/error-handler.ts',
      'plugins/http-edge.ts',
      'plugins/rate-limit.ts',
    ]);
  });

  it('passes no status beside a problem code: the code implies it', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(statusesBesideCodes()).toEqual([]);
  });
});

const test = apiTest();

/** Each kind of answer that tells the client to wait, with the whole seconds it says. */
const waits: Array<{ name: string; error: () => AppError; status: number; seconds: string }> = [
  { name: 'a failure limit', error: () => new RateLimitedError(0.2), status: 429, seconds: '1' },
  { name: 'the receipt quota', error: () => new ReceiptQuotaExceededError(59.5), status: 429, seconds: '60' },
  { name: 'the board image quota', error: () => new ImageQuotaExceededError(3600), status: 429, seconds: '3600' },
  { name: 'load shedding', error: () => new OverloadedError(), status: 503, seconds: '5' },
  { name: 'the password queue', error: () => new PasswordQueueFullError(), status: 503, seconds: '5' },
  { name: 'the database away', error: () => new DatabaseUnavailableError(), status: 503, seconds: '5' },
  {
    name: 'draining',
    error: () => new ServiceUnavailableError('SERVICE_UNAVAILABLE', 'Shutting down.', 1),
    status: 503,
    seconds: '1',
  },
  {
    name: 'the app store away',
    error: () => problemFor(new StoreUnavailableError('down')) as AppError,
    status: 503,
    seconds: '30',
  },
];

async function registerProbes(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    scope.get<{ Params: { index: string } }>('/api/probe/waits/:index', async (request) => {
      throw waits[Number(request.params.index)]!.error();
    });
    scope.get('/api/probe/database-away', async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    scope.get('/api/probe/limited', { onRequest: scope.rateLimit({ max: 1, timeWindow: 60_000 }) }, async () => ({}));
    scope.get('/api/probe/refused', async () => {
      throw new ServiceUnavailableError('PROVIDER_NOT_CONFIGURED', 'Not set up here.');
    });
  });
  // The late path: an onSend hook whose own work failed after the answer was chosen.
  await app.register(async (scope) => {
    scope.addHook('onSend', (request, reply, _payload, done) => {
      done(null, problemInsteadOf(new DatabaseUnavailableError(), request, reply));
    });
    scope.get('/api/probe/late', async () => ({ ok: true }));
  });
}

describe('every answer that tells the client to wait says so in whole seconds (C50)', () => {
  test.beforeAll(async ({ app }) => registerProbes(app));

  test.for(waits.map((wait, index) => ({ ...wait, index })))(
    '$name: its status and Retry-After',
    async ({ index, error, status, seconds }, { app }) => {
      const answer = await app.inject({ method: 'GET', url: `/api/probe/waits/${index}` });
      expect([answer.statusCode, answer.json().code, answer.headers['retry-after']]).toEqual([
        status,
        error().code,
        seconds,
      ]);
    },
  );

  test('every 429, a failure limit or a daily quota, carries the X-RateLimit pair beside Retry-After; a 503 does not (O5)', async ({
    app,
  }) => {
    const limited = await app.inject({ method: 'GET', url: '/api/probe/waits/0' });
    expect([limited.headers['x-ratelimit-remaining'], limited.headers['x-ratelimit-reset']]).toEqual(['0', '1']);
    const quota = await app.inject({ method: 'GET', url: '/api/probe/waits/1' });
    expect([quota.headers['x-ratelimit-remaining'], quota.headers['x-ratelimit-reset']]).toEqual(['0', '60']);
    const shed = await app.inject({ method: 'GET', url: '/api/probe/waits/3' });
    expect(shed.headers['x-ratelimit-remaining']).toBeUndefined();
  });

  test('a route over its @fastify/rate-limit limit: the handler’s Retry-After and X-RateLimit headers', async ({
    app,
  }) => {
    expect((await app.inject({ method: 'GET', url: '/api/probe/limited' })).statusCode).toBe(200);
    const limited = await app.inject({ method: 'GET', url: '/api/probe/limited' });
    expect([limited.statusCode, limited.json().code]).toEqual([429, 'RATE_LIMITED']);
    const seconds = Number(limited.headers['retry-after']);
    expect(Number.isInteger(seconds) && seconds > 0 && seconds <= 60).toBe(true);
    expect(limited.headers).toMatchObject({
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(seconds),
    });
  });

  test('a driver error while the database is away, and the same error raised while answering', async ({ app }) => {
    for (const url of ['/api/probe/database-away', '/api/probe/late']) {
      const answer = await app.inject({ method: 'GET', url });
      expect([answer.statusCode, answer.json().code, answer.headers['retry-after']]).toEqual([
        503,
        'DATABASE_UNAVAILABLE',
        '5',
      ]);
    }
  });

  test('an answer that names no wait carries no Retry-After', async ({ app }) => {
    const refused = await app.inject({ method: 'GET', url: '/api/probe/refused' });
    expect([refused.statusCode, refused.json().code, refused.headers['retry-after']]).toEqual([
      503,
      'PROVIDER_NOT_CONFIGURED',
      undefined,
    ]);
  });
});

describe('a client error of a status no code has (C50)', () => {
  test('answers 400 BAD_REQUEST: the docs page’s files refuse a range past their end', async ({ app }) => {
    const answer = await app.inject({
      method: 'GET',
      url: '/api/docs/static/swagger-ui.css',
      headers: { range: 'bytes=99999999-' },
    });
    expect(answer.json()).toMatchObject({ status: 400, title: 'Bad Request', code: 'BAD_REQUEST' });
    expect(answer.statusCode).toBe(400);
  });
});
