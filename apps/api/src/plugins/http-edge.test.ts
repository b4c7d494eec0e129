import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { apiTest } from '../test/fixtures.js';

const API_CSP = "default-src 'none'";

function expectSecurityHeaders(headers: Record<string, unknown>) {
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(String(headers['content-security-policy'])).toContain(API_CSP);
  expect(String(headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-powered-by']).toBeUndefined();
}

/** Sends raw bytes and returns the raw response (for what Node answers before Fastify sees a request). */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

const edgeTest = apiTest();

describe('security headers and caching', () => {
  const test = edgeTest;

  test('are on successes, problems and framework errors alike', async ({ app }) => {
    const ok = await app.inject({ method: 'GET', url: '/api/auth/signup-enabled' });
    expect(ok.statusCode).toBe(200);
    expectSecurityHeaders(ok.headers);
    expect(ok.headers['cache-control']).toBe('no-store');

    const unauthenticated = await app.inject({ method: 'GET', url: '/api/auth/profile' });
    expect(unauthenticated.statusCode).toBe(401);
    expectSecurityHeaders(unauthenticated.headers);

    const invalid = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 1 } });
    expect(invalid.statusCode).toBe(400);
    expectSecurityHeaders(invalid.headers);

    const unknown = await app.inject({ method: 'GET', url: '/api/nowhere' });
    expect(unknown.statusCode).toBe(404);
    expectSecurityHeaders(unknown.headers);
  });

  test('answers a malformed percent-encoding with a 400 problem, and an over-long id with a 404 problem', async ({
    app,
  }) => {
    const badUrl = await app.inject({ method: 'PUT', url: '/api/admin/members/%E0%A4%A/plan' });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.headers['content-type']).toContain('application/problem+json');
    expect(badUrl.json()).toMatchObject({ code: 'BAD_REQUEST' });
    expectSecurityHeaders(badUrl.headers);

    const longId = await app.inject({ method: 'DELETE', url: `/api/admin/members/${'9'.repeat(5000)}` });
    expect(longId.statusCode).toBe(404);
    expect(longId.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  test('gives the docs page a policy that lets its own scripts run', async ({ app }) => {
    const docs = await app.inject({ method: 'GET', url: '/api/docs/' });
    expect(docs.statusCode).toBe(200);
    const policy = String(docs.headers['content-security-policy']);
    expect(policy).toMatch(/script-src 'self'/);
    expect(policy).not.toContain('upgrade-insecure-requests');
    expect(docs.headers['x-content-type-options']).toBe('nosniff');
  });

  test('echoes a safe client request id and replaces an unsafe one', async ({ app }) => {
    const safe = await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc-123.4:x' },
    });
    expect(safe.headers['x-request-id']).toBe('abc-123.4:x');
    const unsafe = await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'forged\u0001line {"level":60}' },
    });
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('an answer to a URL the router refuses, before any hook ran, still carries the edge headers', async ({
    app,
  }) => {
    const refused = await app.inject({
      method: 'GET',
      url: '/api/account/wallets/%E0%A4%A',
      headers: { 'x-request-id': 'bad-url-1' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.headers['x-request-id']).toBe('bad-url-1');
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
  });

  test('answers headers over the size limit with a 431 problem on the raw socket', async ({ app }) => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const response = await rawRequest(
      port,
      `GET /api/admin/members?q=${'x'.repeat(100_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    const [head = '', body = ''] = response.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toContain('content-type: application/problem+json');
    expect(head).toContain('x-content-type-options: nosniff');
    expect(JSON.parse(body)).toMatchObject({ status: 431, code: 'REQUEST_HEADERS_TOO_LARGE' });
  });

  test('applies the configured server timeouts', ({ app }) => {
    const server = app.server;
    expect(server.requestTimeout).toBe(60_000);
    expect(server.keepAliveTimeout).toBe(72_000);
    expect(server.timeout).toBe(120_000);
  });
});

const corsTest = apiTest({ CORS_ORIGINS: 'https://app.nestegg.test' });

describe('CORS', () => {
  const test = corsTest;

  const preflight = (app: FastifyInstance, origin: string) =>
    app.inject({
      method: 'OPTIONS',
      url: '/api/auth/login',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });

  test('lets a configured origin through the preflight and the request', async ({ app }) => {
    const answer = await preflight(app, 'https://app.nestegg.test');
    expect(answer.statusCode).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe('https://app.nestegg.test');
    expect(String(answer.headers['access-control-allow-headers'])).toContain('authorization');
    const request = await app.inject({
      method: 'GET',
      url: '/api/auth/signup-enabled',
      headers: { origin: 'https://app.nestegg.test' },
    });
    expect(request.headers['access-control-allow-origin']).toBe('https://app.nestegg.test');
    expect(String(request.headers['access-control-expose-headers'])).toContain('retry-after');
  });

  test('gives any other origin no access', async ({ app }) => {
    const answer = await preflight(app, 'https://evil.example');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });
});

const noCorsTest = apiTest();

describe('CORS without configured origins', () => {
  const test = noCorsTest;

  test('allows no cross-origin access', async ({ app }) => {
    const answer = await app.inject({
      method: 'GET',
      url: '/api/auth/signup-enabled',
      headers: { origin: 'https://app.nestegg.test' },
    });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });
});

// Any heap is over one byte: once the first sample is taken, every request is shed.
const sheddingTest = apiTest({ OVERLOAD_MAX_HEAP_USED_BYTES: '1' });

describe('overload shedding', () => {
  const test = sheddingTest;

  test('answers 503 OVERLOADED with Retry-After as problem+json, and keeps liveness answering', async ({ app }) => {
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const shed = await app.inject({ method: 'GET', url: '/api/auth/signup-enabled' });
    expect(shed.statusCode).toBe(503);
    expect(shed.headers['content-type']).toContain('application/problem+json');
    expect(shed.headers['retry-after']).toBe('5');
    expect(shed.json()).toMatchObject({ code: 'OVERLOADED' });
    expectSecurityHeaders(shed.headers);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
