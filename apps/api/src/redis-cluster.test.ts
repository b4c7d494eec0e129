import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { sessionCacheInvalidation } from '@nestegg/db';
import {
  createTestRedis,
  freePort,
  keySlot,
  type OwnRedisCluster,
  startOwnRedisServer,
  startRedisCluster,
  type TestRedis,
  testRedisClusterNodes,
  testRedisUrl,
  useTestDatabase,
} from '@nestegg/testing';
import type { FastifyInstance } from 'fastify';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { InvalidEnvironmentError, loadEnv } from './env.js';
import { RedisTopologyError } from './lib/redis.js';
import { hashToken, sessionCacheKeys } from './modules/members/auth/session.store.js';
import { createMemberWithSession, testEnvironment } from './test/app.js';
import { uniqueEmail } from './test/auth-helpers.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function issuesOf(source: Record<string, string>): string[] {
  try {
    loadEnv({ DATABASE_URL: 'postgres://localhost/x', ...source });
    return [];
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) return error.issues;
    throw error;
  }
}

describe('REDIS_CLUSTER_NODES (decision R1)', () => {
  it('parses host:port lists, and refuses REDIS_URL with it, a bad node, or a prefix with a hash tag', () => {
    expect(
      loadEnv({ DATABASE_URL: 'postgres://x/y', REDIS_CLUSTER_NODES: 'a:7000, 10.0.0.2:7001,[::1]:7002' }),
    ).toMatchObject({
      REDIS_CLUSTER_NODES: [
        { host: 'a', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    const both = issuesOf({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'a:7000' }).join('\n');
    expect(both).toMatch(/REDIS_URL and REDIS_CLUSTER_NODES are both set/);
    expect(issuesOf({ REDIS_CLUSTER_NODES: 'a:7000,b' }).join('\n')).toMatch(/REDIS_CLUSTER_NODES.*host:port/);
    expect(issuesOf({ REDIS_CLUSTER_NODES: 'a:7000', REDIS_KEY_PREFIX: '{app}:' }).join('\n')).toMatch(
      /REDIS_KEY_PREFIX/,
    );
    expect(issuesOf({ REDIS_URL: 'redis://a:6379', REDIS_KEY_PREFIX: '{app}:' })).toEqual([]);
  });
});

describe('slots as the cluster computes them', () => {
  let cluster: TestRedis;
  beforeAll(async () => {
    cluster = await createTestRedis({ topology: 'cluster' });
  });
  afterAll(() => cluster?.cleanup());

  it('keySlot matches CLUSTER KEYSLOT, and a token or an account keeps its keys in one slot', async () => {
    const keys = sessionCacheKeys(hashToken('some token'));
    const samples = [
      'plain',
      ...Object.values(keys),
      'attempts:{login-account:a}b@x}:known',
      '{}empty',
      'a{}b{c}',
      '한국어{키}',
    ];
    for (const key of samples) {
      expect(keySlot(key)).toBe(Number(await (cluster.client as Cluster).cluster('KEYSLOT', key)));
    }
    expect(new Set(Object.values(keys).map((key) => keySlot(`nestegg:${key}`))).size).toBe(1);
  });
});

describe('a Redis of the wrong topology stops the start (decision R3)', () => {
  const database = useTestDatabase();
  const env = (redis: Record<string, string>) =>
    loadEnv(
      testEnvironment({ databaseUrl: database.current.url, redisUrl: '', redisKeyPrefix: 'nestegg:test:r3:' }, redis),
    );

  it('REDIS_URL pointing at a cluster node', async () => {
    const node = testRedisClusterNodes().split(',')[0]!;
    const failed = await buildApp(env({ REDIS_URL: `redis://${node}` })).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(RedisTopologyError);
    expect((failed as Error).message).toMatch(/REDIS_URL points at .* cluster_enabled:1.*set REDIS_CLUSTER_NODES/);
  });

  it('a frozen Redis at start neither stops nor holds up the start', async () => {
    const frozen = await startOwnRedisServer();
    frozen.pause();
    try {
      const started = Date.now();
      const app = await buildApp(env({ REDIS_URL: frozen.url }));
      expect(Date.now() - started).toBeLessThan(15_000);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({ status: 'degraded' });
      await app.close();
    } finally {
      frozen.resume();
      await frozen.stop();
    }
  });

  it('REDIS_CLUSTER_NODES naming a Redis that is not a cluster node', async () => {
    const single = new URL(testRedisUrl);
    const failed = await buildApp(env({ REDIS_CLUSTER_NODES: `${single.hostname}:${single.port || 6379}` })).catch(
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(RedisTopologyError);
    expect((failed as Error).message).toMatch(/REDIS_CLUSTER_NODES names .* cluster_enabled:0/);
  });
});

/**
 * Decision R7: the api process itself (src/server.ts from source, as `npm run dev` runs it) stops with one log
 * line naming the variable and exit code 1, not an uncaught error's stack trace.
 */
describe('the api process with a Redis of the wrong topology', () => {
  const database = useTestDatabase();
  const apiDir = fileURLToPath(new URL('..', import.meta.url));

  async function start(redis: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !/^(DATABASE_URL|REDIS_|PORT|METRICS_|OTEL_|npm_)/i.test(key)),
    );
    const child = spawn(process.execPath, ['--conditions=@nestegg/source', '--import', 'tsx', 'src/server.ts'], {
      cwd: apiDir,
      env: {
        ...inherited,
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        PORT: String(await freePort()),
        METRICS_PORT: '0',
        DATABASE_URL: database.current.url,
        REDIS_KEY_PREFIX: 'nestegg:test:r7:',
        ...redis,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    return { code, lines: output.split('\n').filter((line) => line.trim() !== '') };
  }

  it('REDIS_URL at a cluster node: one fatal line naming REDIS_URL, exit code 1', async () => {
    const node = testRedisClusterNodes().split(',')[0]!;
    const { code, lines } = await start({ REDIS_URL: `redis://${node}` });
    expect(code, lines.join('\n')).toBe(1);
    expect(lines, lines.join('\n')).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: 60, name: 'api', variable: 'REDIS_URL' });
    expect(line.msg).toMatch(/^REDIS_URL points at redis:\/\/127\.0\.0\.1:\d+, a Redis Cluster node/);
    expect(line.msg).toMatch(/set REDIS_CLUSTER_NODES/);
    expect(lines[0]).not.toMatch(/\bat \S+ \(|stack/);
  }, 60_000);

  it('REDIS_CLUSTER_NODES at a single Redis: one fatal line naming REDIS_CLUSTER_NODES, exit code 1', async () => {
    const single = new URL(testRedisUrl);
    const { code, lines } = await start({ REDIS_CLUSTER_NODES: `${single.hostname}:${single.port || 6379}` });
    expect(code, lines.join('\n')).toBe(1);
    expect(lines, lines.join('\n')).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: 60, name: 'api', variable: 'REDIS_CLUSTER_NODES' });
    expect(line.msg).toMatch(/^REDIS_CLUSTER_NODES names .*, a Redis that is not a cluster node/);
    expect(lines[0]).not.toMatch(/\bat \S+ \(|stack/);
  }, 60_000);
});

/**
 * Decision R5: one primary shut down and started again (its append-only file brings its data back, as a
 * restarted primary's would): requests are served meanwhile (sessions from PostgreSQL, limits fail open),
 * /readyz says degraded, and a logout made meanwhile holds once the primary is back.
 */
describe('a cluster primary goes away and returns', () => {
  const database = useTestDatabase();
  let cluster: OwnRedisCluster;
  let app: FastifyInstance;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    app = await buildApp(
      loadEnv(
        testEnvironment(
          { databaseUrl: database.current.url, redisUrl: '', redisKeyPrefix: 'nestegg:' },
          { REDIS_CLUSTER_NODES: cluster.nodes },
        ),
      ),
    );
  });
  afterAll(async () => {
    await app?.close();
    await cluster?.stop();
  });

  const profile = async (token: string) =>
    (await app.inject({ method: 'GET', url: '/api/auth/profile', headers: bearer(token) })).statusCode;
  const readiness = async () => (await app.inject({ method: 'GET', url: '/readyz' })).json();
  /** The primary that holds a token's keys (index into the cluster's ports). */
  const primaryOf = (token: string) => {
    const slot = keySlot(`nestegg:${sessionCacheKeys(hashToken(token)).session}`);
    const [owner] = (app.redis as Cluster).slots[slot] ?? [];
    return cluster.ports.indexOf(Number(owner?.split(':').at(-1)));
  };

  it('serves through fallbacks meanwhile and undoes nothing when the primary returns', async () => {
    expect(await readiness()).toEqual({ status: 'ready', checks: { database: 'ok', cache: 'ok' } });
    const members = await Promise.all(Array.from({ length: 6 }, () => createMemberWithSession(app)));
    for (const { token } of members) expect(await profile(token)).toBe(200);
    const victim = members[0]!;
    const away = primaryOf(victim.token);
    expect(away).toBeGreaterThanOrEqual(0);
    const elsewhere = members.find(({ token }) => primaryOf(token) !== away);
    expect(await app.redis!.exists(sessionCacheKeys(hashToken(victim.token)).session)).toBe(1);

    await cluster.stopNode(away);
    // Every session still answers (from the PostgreSQL backup where its copy is away).
    expect(await profile(victim.token)).toBe(200);
    if (elsewhere) expect(await profile(elsewhere.token)).toBe(200);
    expect(
      await eventually(async () => {
        const body = await readiness();
        return body.status === 'degraded' && body.checks.cache === 'down';
      }),
    ).toBe(true);
    // Login limits fail open: a wrong password is 401, not 429 or 503.
    const wrong = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.70.0.1',
      payload: { email: uniqueEmail(), password: 'wrong password' },
    });
    expect(wrong.statusCode).toBe(401);
    // A logout while the copy's primary is away: committed, its cache drop left in the outbox.
    const logout = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(victim.token) });
    expect(logout.statusCode).toBe(204);
    expect(await profile(victim.token)).toBe(401);
    expect((await app.db.select().from(sessionCacheInvalidation)).length).toBeGreaterThan(0);

    await cluster.startNode(away);
    expect(await eventually(async () => (await app.db.select().from(sessionCacheInvalidation)).length === 0)).toBe(
      true,
    );
    expect(await app.redis!.exists(sessionCacheKeys(hashToken(victim.token)).session)).toBe(0);
    expect(await profile(victim.token)).toBe(401);
    for (const { token } of members.slice(1)) expect(await profile(token)).toBe(200);
    expect(await eventually(async () => (await readiness()).status === 'ready')).toBe(true);
  });
});
