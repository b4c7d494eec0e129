/**
 * Issue 17 item 11, as a deployment sees it: two api processes and two billing workers on one PostgreSQL
 * and one Redis of the test's own. Under a bounded load of idempotent writes and reads, PostgreSQL is
 * restarted (fast and immediate), Redis is stopped and started, and one api is killed with SIGKILL. Clients
 * behave as behind a load balancer: a request that finds no connection goes to the other replica, and a
 * write that got no definite answer is retried with its Idempotency-Key.
 *
 * It asserts that no replica exits by itself, that every acknowledged write exists exactly once and no key
 * wrote twice, that every answer that is not a success is problem+json without internal text, and that no
 * request waits longer than ANSWER_BOUND_MS (decision FO30).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { migrateDatabase } from '@nestegg/db/migrate';
import {
  freePort,
  type OwnRedisServer,
  type PrivatePostgres,
  startOwnRedisServer,
  startPrivatePostgres,
} from '@nestegg/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ANSWER_BOUND_MS = 5_000;
const LOAD_MS = 42_000;
const SETTLE_MS = 20_000;
const WRITERS = 3;

const apiDir = fileURLToPath(new URL('..', import.meta.url));
const workerDir = fileURLToPath(new URL('../../billing-worker', import.meta.url));

interface Replica {
  name: string;
  child: ChildProcess;
  output: string[];
  killedByTest: boolean;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

interface Answer {
  replica: string;
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: string;
  ms: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs an app from its TypeScript sources, as `npm run dev` does, keeping what it prints. */
function startProcess(name: string, cwd: string, entry: string, env: Record<string, string>): Replica {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(DATABASE_URL|REDIS_URL|REDIS_KEY_PREFIX|PORT|npm_)/i.test(key)),
  );
  const child = spawn(process.execPath, ['--conditions=@nestegg/source', '--import', 'tsx', entry], {
    cwd,
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const replica: Replica = { name, child, output: [], killedByTest: false };
  const keep = (chunk: Buffer) => replica.output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code, signal) => {
    replica.exit = { code, signal };
  });
  return replica;
}

async function waitUntilReady(replica: Replica, url: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (replica.exit) throw new Error(`${replica.name} exited at start:\n${replica.output.join('\n')}`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await sleep(250);
  }
  throw new Error(`${replica.name} did not become ready:\n${replica.output.join('\n')}`);
}

const stopProcess = (replica: Replica) =>
  new Promise<void>((resolve) => {
    if (replica.exit) return resolve();
    replica.child.once('exit', () => resolve());
    replica.child.kill('SIGTERM');
    setTimeout(() => replica.child.kill('SIGKILL'), 15_000).unref();
  });

describe('chaos: restarts, an outage and a killed replica under load', () => {
  let database: PrivatePostgres;
  let redis: OwnRedisServer;
  const apis: Array<{ replica: Replica; url: string }> = [];
  const workers: Replica[] = [];
  const answers: Answer[] = [];
  const hung: string[] = [];

  beforeAll(async () => {
    [database, redis] = await Promise.all([startPrivatePostgres(), startOwnRedisServer()]);
    const admin = postgres(database.url, { max: 1, onnotice: () => {} });
    await admin`create database nestegg`;
    await admin.end();
    const databaseUrl = database.url.replace(/\/postgres$/, '/nestegg');
    await migrateDatabase(databaseUrl);
    const shared = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'chaos:' };
    for (const name of ['api-a', 'api-b']) {
      const port = await freePort();
      const metrics = String(await freePort());
      const replica = startProcess(name, apiDir, 'src/server.ts', {
        ...shared,
        HOST: '127.0.0.1',
        PORT: String(port),
        METRICS_PORT: metrics,
      });
      apis.push({ replica, url: `http://127.0.0.1:${port}` });
    }
    const workerPorts: number[] = [];
    for (const name of ['worker-1', 'worker-2']) {
      const port = await freePort();
      workerPorts.push(port);
      workers.push(
        startProcess(name, workerDir, 'src/main.ts', {
          ...shared,
          WORKER_HOST: '127.0.0.1',
          WORKER_HEALTH_PORT: String(port),
        }),
      );
    }
    await Promise.all([
      ...apis.map(({ replica, url }) => waitUntilReady(replica, `${url}/readyz`)),
      ...workers.map((replica, index) => waitUntilReady(replica, `http://127.0.0.1:${workerPorts[index]}/readyz`)),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...apis.map(({ replica }) => stopProcess(replica)), ...workers.map(stopProcess)]);
    await Promise.all([redis?.stop(), database?.stop()]);
  }, 60_000);

  /** One request as a load balancer sends it: to a live replica, the next one if the connection fails. */
  async function send(method: string, path: string, init: { token?: string; key?: string; body?: unknown } = {}) {
    const start = Math.floor(Math.random() * apis.length);
    for (let attempt = 0; attempt < apis.length; attempt += 1) {
      const { replica, url } = apis[(start + attempt) % apis.length]!;
      if (replica.exit) continue;
      const began = performance.now();
      try {
        const response = await fetch(`${url}${path}`, {
          method,
          headers: {
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
            ...(init.key ? { 'idempotency-key': init.key } : {}),
          },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
          signal: AbortSignal.timeout(ANSWER_BOUND_MS * 3),
        });
        const answer: Answer = {
          replica: replica.name,
          method,
          path,
          status: response.status,
          contentType: response.headers.get('content-type') ?? '',
          body: await response.text(),
          ms: performance.now() - began,
        };
        answers.push(answer);
        return answer;
      } catch (error) {
        if ((error as Error).name === 'TimeoutError') hung.push(`${method} ${path} on ${replica.name}`);
        // No answer (refused, reset, killed): the balancer tries the next replica.
      }
    }
    return undefined;
  }

  async function member(label: string): Promise<string> {
    const email = `chaos-${label}-${randomUUID().slice(0, 8)}@nestegg.test`;
    const password = 'chaos monkey wrench 42';
    const signup = await send('POST', '/api/auth/signup', { body: { email, password, displayName: label } });
    expect(signup?.status, signup?.body).toBe(201);
    const login = await send('POST', '/api/auth/login', { body: { email, password } });
    expect(login?.status, login?.body).toBe(200);
    return (JSON.parse(login!.body) as { token: string }).token;
  }

  it(
    'loses no acknowledged write, writes nothing twice, leaks nothing and keeps every replica up',
    async () => {
      const tokens = await Promise.all(Array.from({ length: WRITERS }, (_, index) => member(`writer${index}`)));
      const acknowledged = new Set<string>();
      const attempted = new Set<string>();
      const loadEnds = Date.now() + LOAD_MS;

      /** Writes with one key until the write is acknowledged, refused for good, or time runs out. */
      async function write(token: string): Promise<void> {
        const key = randomUUID();
        attempted.add(key);
        const body = { type: 'EXPENSE', amount: 1200, date: '2026-11-26', memo: `chaos ${key}` };
        const giveUp = Date.now() + LOAD_MS + SETTLE_MS;
        while (Date.now() < giveUp) {
          const answer = await send('POST', '/api/account/entries', { token, key, body });
          if (answer?.status === 201) {
            acknowledged.add(key);
            return;
          }
          if (answer && answer.status < 500 && answer.status !== 409 && answer.status !== 429) return;
          await sleep(250);
        }
      }

      const writers = tokens.map(async (token) => {
        while (Date.now() < loadEnds) await write(token);
      });
      const reader = (async () => {
        while (Date.now() < loadEnds) {
          await send('GET', '/api/account/entries?size=20', { token: tokens[0]! });
          await send('GET', '/api/auth/profile', { token: tokens[1]! });
        }
      })();

      const chaos = (async () => {
        await sleep(3_000);
        await database.restart('fast');
        await sleep(5_000);
        await database.restart('immediate');
        await sleep(5_000);
        await redis.stop();
        await sleep(6_000);
        await redis.start();
        await sleep(4_000);
        const victim = apis[1]!.replica;
        victim.killedByTest = true;
        victim.child.kill('SIGKILL');
        await sleep(3_000);
        await database.restart('fast');
      })();

      await Promise.all([...writers, reader, chaos]);

      // Recovery: the surviving replica serves again.
      const after = await send('GET', '/api/auth/profile', { token: tokens[0]! });
      expect(after?.status).toBe(200);

      // No replica exited by itself.
      for (const replica of [...apis.map(({ replica }) => replica), ...workers]) {
        if (replica.killedByTest) expect(replica.exit?.signal).toBe('SIGKILL');
        else expect(replica.exit, `${replica.name}:\n${replica.output.slice(-40).join('\n')}`).toBeUndefined();
      }

      // Every acknowledged write exists once; no key wrote twice.
      const check = postgres(database.url.replace(/\/postgres$/, '/nestegg'), { max: 1, onnotice: () => {} });
      const rows = await check<Array<{ memo: string; copies: number }>>`
        select memo, count(*)::int as copies from account_entry where memo like 'chaos %' group by memo`;
      await check.end();
      const copies = new Map(rows.map((row) => [row.memo.slice('chaos '.length), row.copies]));
      for (const key of acknowledged) expect(copies.get(key), key).toBe(1);
      for (const [key, count] of copies) {
        expect(attempted.has(key)).toBe(true);
        expect(count, key).toBe(1);
      }

      // Every answer is a success or problem+json without internal text, and none waited past the bound.
      const failures = answers.filter((answer) => answer.status >= 400);
      for (const answer of failures) {
        expect(answer.contentType, `${answer.method} ${answer.path} ${answer.status}`).toContain(
          'application/problem+json',
        );
        expect(JSON.parse(answer.body)).toMatchObject({ code: expect.any(String), status: answer.status });
      }
      for (const answer of answers) {
        expect(answer.body).not.toMatch(/Failed query|postgres:\/\/|redis:\/\/|\bat .+\.(ts|js):\d+|select .+ from /i);
      }
      expect(hung).toEqual([]);
      const slowest = Math.max(...answers.map((answer) => answer.ms));
      expect(slowest).toBeLessThanOrEqual(ANSWER_BOUND_MS);

      const byStatus = Object.fromEntries(
        [...new Set(answers.map((answer) => answer.status))].map((status) => [
          status,
          answers.filter((answer) => answer.status === status).length,
        ]),
      );
      console.info(
        `chaos: ${answers.length} answers ${JSON.stringify(byStatus)}, ${acknowledged.size} acknowledged writes of ` +
          `${attempted.size} keys, slowest answer ${Math.round(slowest)} ms`,
      );
      expect(acknowledged.size).toBeGreaterThan(20);
    },
    LOAD_MS + SETTLE_MS + 60_000,
  );
});
