/**
 * Decision FO31: a request that reaches the api while it drains (after `close()` began, on a connection still
 * open) answers 503 problem+json with Retry-After and Connection: close, not Fastify's plain JSON 503.
 */
import { connect } from 'node:net';
import { useTestDatabase } from '@nestegg/testing';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadEnv } from '../env.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an api that is shutting down', () => {
  const database = useTestDatabase();

  it('answers a request that arrives during the drain with 503 problem+json', async () => {
    const app = await buildApp(
      loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: database.current.url, METRICS_PORT: '0' }),
    );
    app.get('/api/probe/slow', async () => {
      await sleep(800);
      return { slow: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };

    // A slow request keeps the connection open while the drain starts; the next one arrives on it meanwhile.
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    const ended = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /api/probe/slow HTTP/1.1\r\nHost: api\r\n\r\n');
    await sleep(200);
    const closing = app.close();
    await sleep(200);
    socket.write('GET /api/auth/signup-enabled HTTP/1.1\r\nHost: api\r\n\r\n');
    await Promise.race([ended, sleep(10_000)]);
    socket.destroy();
    await closing;

    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toMatch(/content-type: application\/problem\+json/i);
    expect(second).toMatch(/retry-after: 1/i);
    expect(second).toMatch(/connection: close/i);
    expect(second).toContain('"code":"SERVICE_UNAVAILABLE"');
  });
});
