/**
 * Issue 40 part 1, as a deployment sees it (decisions FO33–FO36): a private primary with a synchronous streaming
 * standby (`pg_basebackup`) on loopback ports, `DATABASE_URL` naming both (`target_session_attrs=read-write`), two
 * api processes, a billing worker and a Redis of the test's own. Under idempotent writes through both apis, the
 * primary is stopped with `-m immediate` and the standby promoted 0.2 s later.
 *
 * It asserts that no process exits; that every answer that is not a success is a 503 `DATABASE_UNAVAILABLE`
 * problem with `Retry-After` (or a 409 of the idempotency key), within the bound below; that every api replica
 * writes to the new primary, `/readyz` is ready everywhere, the worker's LISTEN wakes it and its job engine runs a
 * job there, and each listener listens on it, all within 10 s of the promotion; that every acknowledged write
 * exists once and no key wrote twice (the replication is synchronous: an acknowledged commit is on the standby);
 * that the migrations and the admin command take the same URL. It prints the time to the first successful write
 * after the promotion and the counts.
 *
 * Before it, the three processes with a URL they cannot use: one line naming DATABASE_URL, no stack trace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { migrateDatabase } from '@nestegg/db/migrate';
import {
  freePort,
  type OwnRedisServer,
  type PrivateReplicatedPostgres,
  startOwnRedisServer,
  startPrivateReplicatedPostgres,
} from '@nestegg/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The api's acquire timeout (2 s) and a loaded 2-core machine's scheduling. */
const ANSWER_BOUND_MS = 3_000;
const BEFORE_MS = 4_000;
const AFTER_MS = 12_000;
const PROMOTE_AFTER_MS = 200;
const RECOVERY_BOUND_MS = 10_000;
const WRITERS = 4;
/** A key refused as in use this long (its claim committed, the request died with the primary) is left for another. */
const IN_USE_PATIENCE_MS = 3_000;

const apiDir = fileURLToPath(new URL('..', import.meta.url));
const workerDir = fileURLToPath(new URL('../../billing-worker', import.meta.url));
const dbDir = fileURLToPath(new URL('../../../packages/db', import.meta.url));

interface Process {
  name: string;
  child: ChildProcess;
  output: string[];
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

interface Answer {
  replica: string;
  status: number;
  code?: string;
  retryAfter: string | null;
  contentType: string;
  began: number;
  answered: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs an entry point from its TypeScript sources, as `npm run dev` does, keeping what it prints. */
function startProcess(
  name: string,
  cwd: string,
  entry: string,
  env: Record<string, string>,
  args: string[] = [],
): Process {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(DATABASE_URL|REDIS_URL|REDIS_KEY_PREFIX|PORT|ADMIN_PASSWORD|npm_)/i.test(key),
    ),
  );
  const child = spawn(process.execPath, ['--conditions=@nestegg/source', '--import', 'tsx', entry, ...args], {
    cwd,
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: Process = { name, child, output: [] };
  const keep = (chunk: Buffer) => started.output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code, signal) => {
    started.exit = { code, signal };
  });
  return started;
}

const exited = (started: Process) =>
  new Promise<NonNullable<Process['exit']>>((resolve) => {
    if (started.exit) return resolve(started.exit);
    started.child.once('exit', (code, signal) => resolve({ code, signal }));
  });

async function waitUntilReady(started: Process, url: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (started.exit) throw new Error(`${started.name} exited at start:\n${started.output.join('\n')}`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await sleep(250);
  }
  throw new Error(`${started.name} did not become ready:\n${started.output.join('\n')}`);
}

const stopProcess = (started: Process) =>
  new Promise<void>((resolve) => {
    if (started.exit) return resolve();
    started.child.once('exit', () => resolve());
    started.child.kill('SIGTERM');
    setTimeout(() => started.child.kill('SIGKILL'), 15_000).unref();
  });

describe('a DATABASE_URL the processes cannot use', () => {
  it('stops the api, the worker and the migrations with one line naming the variable, no stack trace', async () => {
    // target_session_attrs=standby: a URL of several hosts the apps could only read from.
    const env = {
      DATABASE_URL: 'postgres://u@127.0.0.1:1,127.0.0.1:2/db?target_session_attrs=standby',
    };
    const runs = [
      startProcess('api', apiDir, 'src/server.ts', env),
      startProcess('worker', workerDir, 'src/main.ts', env),
      startProcess('migrate', dbDir, 'src/cli/migrate.ts', env),
    ];
    const exits = await Promise.all(runs.map(exited));
    for (const [index, run] of runs.entries()) {
      const printed = run.output.join('\n');
      expect(exits[index]!.code, `${run.name}:\n${printed}`).not.toBe(0);
      expect(printed, run.name).toMatch(/DATABASE_URL: target_session_attrs=standby/);
      expect(printed, run.name).not.toMatch(/TypeError|Invalid URL|\n\s+at /);
    }
  }, 120_000);
});

describe('failover to a standby under load', () => {
  let pair: PrivateReplicatedPostgres;
  let redis: OwnRedisServer;
  let databaseUrl: string;
  const apis: Array<{ started: Process; url: string }> = [];
  let worker: Process;
  let workerUrl: string;

  beforeAll(async () => {
    [pair, redis] = await Promise.all([startPrivateReplicatedPostgres({ synchronous: true }), startOwnRedisServer()]);
    const admin = postgres(pair.primary.url, { max: 1, onnotice: () => {} });
    await admin`create database nestegg`;
    await admin.end();
    databaseUrl = pair.url('nestegg', 'target_session_attrs=read-write');
    await migrateDatabase(databaseUrl);
    const shared = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'failover:' };
    for (const name of ['api-a', 'api-b']) {
      const port = await freePort();
      const started = startProcess(name, apiDir, 'src/server.ts', {
        ...shared,
        HOST: '127.0.0.1',
        PORT: String(port),
        METRICS_PORT: String(await freePort()),
      });
      apis.push({ started, url: `http://127.0.0.1:${port}` });
    }
    const workerPort = await freePort();
    workerUrl = `http://127.0.0.1:${workerPort}`;
    // No sweep while the test runs: a notification is dispatched by the wake-up (LISTEN) or not at all.
    worker = startProcess('worker', workerDir, 'src/main.ts', {
      ...shared,
      WORKER_HOST: '127.0.0.1',
      WORKER_HEALTH_PORT: String(workerPort),
      STORE_INBOX_SWEEP_CRON: '0 0 1 1 *',
    });
    await Promise.all([
      ...apis.map(({ started, url }) => waitUntilReady(started, `${url}/readyz`)),
      waitUntilReady(worker, `${workerUrl}/readyz`),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...apis.map(({ started }) => stopProcess(started)), ...(worker ? [stopProcess(worker)] : [])]);
    await Promise.all([redis?.stop(), pair?.stop()]);
  }, 60_000);

  const answers: Answer[] = [];
  const hung: string[] = [];

  /** One request to `replica`, else (no connection) the other, as a load balancer would. */
  async function send(
    preferred: number,
    method: string,
    path: string,
    init: { token?: string; key?: string; body?: unknown } = {},
  ) {
    for (let attempt = 0; attempt < apis.length; attempt += 1) {
      const index = (preferred + attempt) % apis.length;
      const { started, url } = apis[index]!;
      if (started.exit) continue;
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
          signal: AbortSignal.timeout(15_000),
        });
        const text = await response.text();
        const answer: Answer = {
          replica: started.name,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          contentType: response.headers.get('content-type') ?? '',
          began,
          answered: performance.now(),
        };
        if (response.status >= 400) answer.code = (JSON.parse(text) as { code?: string }).code;
        return { answer, text };
      } catch (error) {
        if ((error as Error).name === 'TimeoutError') hung.push(`${method} ${path} on ${started.name}`);
      }
    }
    return undefined;
  }

  async function member(label: string): Promise<{ email: string; token: string }> {
    const email = `failover-${label}-${randomUUID().slice(0, 8)}@nestegg.test`;
    const password = 'failover drill 2026';
    const signup = await send(0, 'POST', '/api/auth/signup', { body: { email, password, displayName: label } });
    expect(signup?.answer.status, signup?.text).toBe(201);
    const login = await send(1, 'POST', '/api/auth/login', { body: { email, password } });
    expect(login?.answer.status, login?.text).toBe(200);
    return { email, token: (JSON.parse(login!.text) as { token: string }).token };
  }

  it('answers 503 while no host is writable, writes to the promoted standby within seconds, loses and doubles nothing', async () => {
    const writers = await Promise.all(Array.from({ length: WRITERS }, (_, index) => member(`writer${index}`)));
    const acknowledged = new Set<string>();
    const attempted = new Set<string>();
    const abandoned = new Set<string>();
    let stopped = false;
    let promotedAt = Number.POSITIVE_INFINITY;

    /** Writes with one key until acknowledged (or refused as in use too long), through replica after replica. */
    async function write(token: string, turn: number): Promise<number> {
      const key = randomUUID();
      attempted.add(key);
      const body = { type: 'EXPENSE', amount: 1500, date: '2026-12-01', memo: `failover ${key}` };
      let inUseSince: number | undefined;
      let replica = turn;
      while (!stopped) {
        const sent = await send(replica % apis.length, 'POST', '/api/account/entries', { token, key, body });
        replica += 1;
        if (sent) answers.push(sent.answer);
        if (sent?.answer.status === 201) {
          acknowledged.add(key);
          return replica;
        }
        if (sent?.answer.code === 'IDEMPOTENCY_KEY_IN_USE') {
          inUseSince ??= performance.now();
          if (performance.now() - inUseSince > IN_USE_PATIENCE_MS) break;
        }
        if (sent && sent.answer.status < 500 && sent.answer.status !== 409) break;
        await sleep(100);
      }
      abandoned.add(key);
      return replica;
    }
    const load = writers.map(async ({ token }, index) => {
      let turn = index;
      while (!stopped) turn = await write(token, turn);
    });

    // Until ready again after the promotion: the apis and the worker.
    const readyAt = new Map<string, number>();
    const watchReady = (name: string, url: string) =>
      (async () => {
        while (!readyAt.has(name) && performance.now() < promotedAt + 30_000) {
          const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
            (response) => response.ok,
            () => false,
          );
          if (ok && performance.now() > promotedAt) readyAt.set(name, performance.now() - promotedAt);
          else await sleep(100);
        }
      })();

    await sleep(BEFORE_MS);
    // From the stop until each replica wrote again: a new key every 50 ms, alternating replicas (the writers above may
    // spend seconds on a key whose claim committed before the primary died: 409 until its window passes).
    let stoppedAt = Number.POSITIVE_INFINITY;
    const probing = (async () => {
      const wrote = new Set<string>();
      for (let turn = 0; wrote.size < apis.length && !stopped; turn += 1) {
        const key = randomUUID();
        attempted.add(key);
        const body = { type: 'EXPENSE', amount: 700, date: '2026-12-01', memo: `failover ${key}` };
        const sent = await send(turn % apis.length, 'POST', '/api/account/entries', {
          token: writers[0]!.token,
          key,
          body,
        });
        if (sent) answers.push(sent.answer);
        if (sent?.answer.status === 201) {
          acknowledged.add(key);
          if (sent.answer.began >= stoppedAt) wrote.add(sent.answer.replica);
        } else abandoned.add(key);
        await sleep(50);
      }
    })();
    await pair.primary.stopServer('immediate');
    // `pg_ctl stop -w` has returned: the primary is gone, so a write sent from now on can only reach the standby.
    stoppedAt = performance.now();
    await sleep(PROMOTE_AFTER_MS);
    const promoteIssuedAt = performance.now();
    await pair.standby.promote();
    promotedAt = performance.now();
    const readiness = [
      ...apis.map(({ started, url }) => watchReady(started.name, `${url}/readyz`)),
      watchReady('worker', `${workerUrl}/readyz`),
    ];

    // The worker on the new primary: a store notification stored as the api stores one, woken by NOTIFY only.
    const primary = postgres(pair.standby.url.replace(/\/postgres$/, '/nestegg'), { max: 1, onnotice: () => {} });
    // The LISTEN connections on the new primary (their last statement is the LISTEN), until all four are there.
    const listenersOnNewPrimary = async () =>
      (
        await primary<{ application_name: string; query: string }[]>`
          select application_name, query from pg_stat_activity
           where datname = 'nestegg' and query ilike 'listen %' order by application_name, query`
      ).map((row) => `${row.application_name} ${row.query}`);
    let listeningAt: number | undefined;
    const watchListeners = (async () => {
      while (listeningAt === undefined && performance.now() < promotedAt + 30_000) {
        if ((await listenersOnNewPrimary()).length >= 4) listeningAt = performance.now() - promotedAt;
        else await sleep(100);
      }
    })();
    const inbox = async (messageId: string) => {
      const [row] = await primary<{ id: number }[]>`
          insert into store_notification (message_id, payload, kind, status)
          values (${messageId}, '{}'::jsonb, 'TEST', 'RECEIVED') returning id`;
      await primary`select pg_notify('nestegg_store_inbox', ${String(row!.id)})`;
      const deadline = performance.now() + RECOVERY_BOUND_MS;
      while (performance.now() < deadline) {
        const [state] = await primary<{ status: string }[]>`
            select status from store_notification where id = ${row!.id}`;
        if (state?.status === 'PROCESSED') return performance.now();
        await sleep(100);
      }
      return undefined;
    };
    await sleep(1_000);
    const workerProcessedAt = await inbox(`failover-${randomUUID()}`);
    await sleep(AFTER_MS - 1_000);
    // Well after the listeners came back: the wake-up alone dispatches it.
    const laterProcessedAt = await inbox(`failover-later-${randomUUID()}`);
    const listeners = await listenersOnNewPrimary();
    stopped = true;
    await Promise.all([...load, probing, ...readiness]);

    // After the load: the migrations and the admin command on the same URL reach the new primary.
    await migrateDatabase(databaseUrl);
    const admin = startProcess(
      'admin',
      apiDir,
      'src/cli/admin.ts',
      { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'failover:' },
      ['promote', writers[0]!.email],
    );
    expect((await exited(admin)).code, admin.output.join('\n')).toBe(0);
    const [role] = await primary<{ role: string }[]>`select role from member where email = ${writers[0]!.email}`;
    expect(role?.role).toBe('ADMIN');

    // No process exited.
    for (const started of [...apis.map(({ started }) => started), worker]) {
      expect(started.exit, `${started.name}:\n${started.output.slice(-40).join('\n')}`).toBeUndefined();
    }

    // Every answer in time; every failure a 503 DATABASE_UNAVAILABLE problem with Retry-After, or a key's 409.
    expect(hung).toEqual([]);
    const slowest = Math.max(...answers.map((answer) => answer.answered - answer.began));
    expect(slowest).toBeLessThanOrEqual(ANSWER_BOUND_MS);
    const failures = answers.filter((answer) => answer.status >= 400);
    for (const answer of failures) {
      expect(answer.contentType).toContain('application/problem+json');
      if (answer.status === 409) {
        expect(['IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_OUTCOME_UNKNOWN']).toContain(answer.code);
      } else {
        expect(`${answer.status} ${answer.code}`).toBe('503 DATABASE_UNAVAILABLE');
        expect(answer.retryAfter).toBe('5');
      }
    }

    // Every replica writes to the new primary within 10 s of the promotion.
    // A write sent after the primary stopped can only have reached the standby, once promoted. Measured from the
    // moment `pg_ctl promote` returned (the standby has left recovery); negative when it was answered before.
    const firstWrite = new Map<string, number>();
    for (const answer of answers) {
      if (answer.status !== 201 || answer.began < stoppedAt || firstWrite.has(answer.replica)) continue;
      firstWrite.set(answer.replica, answer.answered - promotedAt);
    }
    for (const { started } of apis) {
      expect(firstWrite.get(started.name), started.name).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    }
    const firstWriteMs = Math.min(...firstWrite.values());
    for (const name of [...apis.map(({ started }) => started.name), 'worker']) {
      expect(readyAt.get(name), `${name} ready`).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    }
    expect(workerProcessedAt, 'the worker processed a notification on the new primary').toBeDefined();
    expect(workerProcessedAt! - promotedAt).toBeLessThanOrEqual(RECOVERY_BOUND_MS + 1_000);
    expect(laterProcessedAt, 'the wake-up reached the worker on the new primary').toBeDefined();

    // LISTEN re-established on the new primary: both apis' session-cache channel, the worker's inbox and engine.
    await watchListeners;
    expect(listeningAt).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    const listening = listeners;
    expect(
      listening.filter((line) => line.startsWith('nestegg-api ') && line.includes('session_cache_distrust')),
    ).toHaveLength(2);
    expect(listening.filter((line) => line.includes('nestegg_store_inbox'))).toHaveLength(1);
    expect(listening.filter((line) => line.startsWith('nestegg-billing-worker-jobs '))).toHaveLength(1);

    // Nothing acknowledged lost, nothing doubled.
    const rows = await primary<Array<{ memo: string; copies: number }>>`
        select memo, count(*)::int as copies from account_entry where memo like 'failover %' group by memo`;
    await primary.end();
    const copies = new Map(rows.map((row) => [row.memo.slice('failover '.length), row.copies]));
    const lost = [...acknowledged].filter((key) => copies.get(key) !== 1);
    const doubled = [...copies].filter(([, count]) => count > 1).map(([key]) => key);
    for (const key of copies.keys()) expect(attempted.has(key)).toBe(true);
    expect(lost).toEqual([]);
    expect(doubled).toEqual([]);
    const writtenUnacknowledged = [...abandoned].filter((key) => copies.has(key)).length;

    const byKind = (list: Answer[]) =>
      Object.fromEntries(
        [...new Set(list.map((answer) => `${answer.status} ${answer.code ?? ''}`.trim()))].map((kind) => [
          kind,
          list.filter((answer) => `${answer.status} ${answer.code ?? ''}`.trim() === kind).length,
        ]),
      );
    const during = answers.filter((answer) => answer.answered >= stoppedAt && answer.began <= promotedAt + 10_000);
    console.info(
      [
        `failover: first successful write ${Math.round(firstWriteMs)} ms after \`pg_ctl promote\` returned ` +
          `(${Math.round(firstWriteMs + promotedAt - promoteIssuedAt)} ms after it was run, ` +
          `${Math.round(firstWriteMs + promotedAt - stoppedAt)} ms after the primary was down); per replica ` +
          JSON.stringify(Object.fromEntries([...firstWrite].map(([name, ms]) => [name, Math.round(ms)]))),
        `  ready again after the promotion (ms): ${JSON.stringify(Object.fromEntries([...readyAt].map(([name, ms]) => [name, Math.round(ms)])))}; ` +
          `worker processed a notification ${Math.round(workerProcessedAt! - promotedAt)} ms after it (stored 1 s after); ` +
          `all four LISTENs on the new primary ${Math.round(listeningAt!)} ms after it`,
        `  keys: ${attempted.size} attempted, ${acknowledged.size} acknowledged, lost ${lost.length}, doubled ${doubled.length}, ` +
          `${abandoned.size} left unacknowledged (${writtenUnacknowledged} of them written)`,
        `  answers: ${answers.length} ${JSON.stringify(byKind(answers))}; from the stop to 10 s after the promotion ${JSON.stringify(byKind(during))}`,
        `  5xx by kind: ${JSON.stringify(byKind(answers.filter((answer) => answer.status >= 500)))}; slowest answer ${Math.round(slowest)} ms`,
      ].join('\n'),
    );
    expect(acknowledged.size).toBeGreaterThan(20);
  }, 180_000);
});
