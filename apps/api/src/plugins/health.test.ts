import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { type OwnRedisServer, startOwnRedisServer, useTestDatabase } from '@nestegg/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadEnv } from '../env.js';
import { createMemberWithSession, testEnvironment } from '../test/app.js';
import { apiTest } from '../test/fixtures.js';

const test = apiTest();

describe('health checks', () => {
  test('/healthz answers while the process runs', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  test('/readyz is ready when the database and Redis answer', async ({ app }) => {
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', checks: { database: 'ok', cache: 'ok' } });
  });

  test('/readyz fails with 503 when the database is unreachable', async () => {
    const unreachable = await buildApp(
      loadEnv({
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
        LOG_LEVEL: 'silent',
        // A busy test machine can block start-up for over a second: that first sample is not overload.
        OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      }),
    );
    try {
      const response = await unreachable.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      // What failed, and nothing of the internal error (addresses, driver messages) that the log keeps.
      expect(response.json()).toMatchObject({ code: 'NOT_READY', detail: 'Not ready: database.' });
      expect(response.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|timed out/);
    } finally {
      await unreachable.close();
    }
  });
});

/** A TCP proxy to `target`: `cut()` drops every connection and refuses new ones (a database gone away). */
async function tcpProxy(target: URL): Promise<{ port: number; cut(): void; restore(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      refusing = true;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => {
      refusing = false;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

describe('readiness while Redis is down (the PostgreSQL backup serves)', () => {
  const database = useTestDatabase();
  let redis: OwnRedisServer;
  let app: FastifyInstance;
  const readyz = () => app.inject({ method: 'GET', url: '/readyz' });
  const degraded = { status: 'degraded', degraded: ['cache'], checks: { database: 'ok', cache: 'down' } };

  beforeAll(async () => {
    redis = await startOwnRedisServer();
    app = await buildApp(
      loadEnv(testEnvironment({ databaseUrl: database.current.url, redisUrl: redis.url, redisKeyPrefix: 'nestegg:' })),
    );
  });
  let redisStopped = false;
  const stopRedis = async () => {
    if (redisStopped) return;
    redisStopped = true;
    await redis.stop();
  };

  afterAll(async () => {
    await app?.close();
    if (redis) await stopRedis();
  });

  it('answers 200 degraded, names Redis, keeps serving, and exposes the state; ready again when it is back', async () => {
    const member = await createMemberWithSession(app);
    const profile = () => app.inject({ method: 'GET', url: '/api/auth/profile', headers: member.headers });
    expect((await readyz()).json()).toEqual({ status: 'ready', checks: { database: 'ok', cache: 'ok' } });
    expect(app.readiness.last()).toMatchObject({ status: 'ready', degraded: [], failed: [] });

    // Frozen (commands time out): still in service, and the answer comes within the probe's bound.
    redis.pause();
    try {
      const started = Date.now();
      const frozen = await readyz();
      expect([frozen.statusCode, frozen.json()]).toEqual([200, degraded]);
      expect(Date.now() - started).toBeLessThan(2500);
      expect((await profile()).statusCode).toBe(200);
    } finally {
      redis.resume();
    }
    await expect.poll(async () => (await readyz()).json().status, { timeout: 10_000 }).toBe('ready');

    // Gone (connections refused): the same.
    await stopRedis();
    const stopped = await readyz();
    expect([stopped.statusCode, stopped.json()]).toEqual([200, degraded]);
    expect((await profile()).statusCode).toBe(200);
    // What a metrics layer reads (a gauge per dependency), without a request of its own.
    expect(app.readiness.last()).toMatchObject({ ...degraded, failed: [] });
    expect((await app.readiness.check()).checks).toEqual({ database: 'ok', cache: 'down' });
  });

  it('is not ready (503) when the database is down too: the fallback needs it', async () => {
    await stopRedis();
    // The database reached through a proxy this test can cut, so the app starts and then loses it.
    const proxy = await tcpProxy(new URL(database.current.url));
    const url = new URL(database.current.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const cut = await buildApp(
      loadEnv(testEnvironment({ databaseUrl: url.href, redisUrl: redis.url, redisKeyPrefix: 'nestegg:' })),
    );
    try {
      expect((await cut.inject({ method: 'GET', url: '/readyz' })).json()).toEqual(degraded);
      proxy.cut();
      const response = await cut.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ code: 'NOT_READY', detail: 'Not ready: database, cache.' });
      expect(cut.readiness.last()).toMatchObject({ status: 'not ready', degraded: [], failed: ['database', 'cache'] });
    } finally {
      proxy.restore();
      await cut.close();
      await proxy.close();
    }
  });
});
