/** Decision P6: one log line per request, written when it ends, without the query string. */
import { Writable } from 'node:stream';
import { describe, expect } from 'vitest';
import { buildApp } from './app.js';
import { loadEnv } from './env.js';
import { apiTest } from './test/fixtures.js';

const lines: Array<Record<string, unknown>> = [];
const stream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
    done();
  },
});

const test = apiTest({}, { logger: { level: 'info', stream } });

describe('request logs', () => {
  test('write exactly one line per request, with its method, path, status and time', async ({ app }) => {
    lines.length = 0;
    const response = await app.inject({
      method: 'GET',
      url: '/api/auth/signup-enabled?email=someone%40example.com',
    });
    expect(response.statusCode).toBe(200);
    const forRequest = lines.filter((line) => line.reqId === response.headers['x-request-id']);
    expect(forRequest).toHaveLength(1);
    expect(forRequest[0]).toMatchObject({
      msg: 'request',
      method: 'GET',
      path: '/api/auth/signup-enabled',
      status: 200,
      ms: expect.any(Number),
    });
    expect(JSON.stringify(lines)).not.toContain('someone');
  });

  test('write one line for a problem answer too', async ({ app }) => {
    lines.length = 0;
    const response = await app.inject({ method: 'GET', url: '/api/auth/profile' });
    expect(response.statusCode).toBe(401);
    const forRequest = lines.filter((line) => line.reqId === response.headers['x-request-id']);
    expect(forRequest).toHaveLength(1);
    expect(forRequest[0]).toMatchObject({ msg: 'request', status: 401 });
  });
});

describe('health probes (decision P26)', () => {
  test('are not logged when they succeed', async ({ app }) => {
    lines.length = 0;
    const live = await app.inject({ method: 'GET', url: '/healthz' });
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect([live.statusCode, ready.statusCode]).toEqual([200, 200]);
    const ids = [live.headers['x-request-id'], ready.headers['x-request-id']];
    expect(lines.filter((line) => ids.includes(line.reqId as string))).toEqual([]);
  });

  test('are logged when they fail', async () => {
    const unreachable = await buildApp(
      loadEnv({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' }),
      { logger: { level: 'info', stream } },
    );
    try {
      lines.length = 0;
      const response = await unreachable.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      const forRequest = lines.filter((line) => line.reqId === response.headers['x-request-id']);
      expect(forRequest).toEqual([expect.objectContaining({ msg: 'request', path: '/readyz', status: 503 })]);
    } finally {
      await unreachable.close();
    }
  });
});
