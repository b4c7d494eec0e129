/** Decision P6: one log line per request, written when it ends, without the query string. */
import { Writable } from 'node:stream';
import { describe, expect } from 'vitest';
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
