/**
 * The child process: hosts the api (as `buildApp` makes it) and, beside it, one bare Fastify server per
 * row running the row's baseline, so both share one Node process and the load generator runs elsewhere.
 * Driven by the parent over IPC (see protocol.ts).
 */

import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { buildApp } from '@nestegg/api/app';
import { loadEnv } from '@nestegg/api/env';
import { createMetricsServer } from '@nestegg/api/metrics-server';
import { createRedisClient } from '@nestegg/api/redis';
import { startTracing } from '@nestegg/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';
import postgres from 'postgres';
import type { BaselineRedis } from './baseline/scripts.js';
import { BENCH_PASSWORD } from './datasets/members.js';
import { apiClients, type CountedClients, countPerRequest, statementsSent } from './instrument.js';
import {
  CHILD_CONFIG_VARIABLE,
  type ChildCommand,
  type ChildConfig,
  type ChildMessage,
  type ChildReplies,
  type CountResult,
  type JsonCheck,
  type ParentMessage,
  type RequestCounts,
  type RowTarget,
} from './protocol.js';
import { type PrivateRedis, startPrivateRedis } from './redis-server.js';
import { rowByKey } from './rows/index.js';
import type { BaselineDeps, BenchRow, HttpRequest, RowSetup } from './rows/types.js';
import { tracingEnvironment } from './telemetry.js';

const COUNTED_REQUESTS = 10;
const UNCOUNTED_FIRST_REQUESTS = 2;
/** The api runs statements of its own now and then (a drain every second): the quietest of these counts. */
const COUNT_TRIALS = 3;

/** Where a side's api and baseline find Redis: one server, or the run's cluster (`--redis cluster`). */
type RedisTarget = { url: string } | { clusterNodes: string };

function redisVariables(target: RedisTarget): Record<string, string> {
  return 'url' in target ? { REDIS_URL: target.url } : { REDIS_CLUSTER_NODES: target.clusterNodes };
}

/** The baseline's client: the api's own (`createRedisClient`), so it fails over alike, on one Redis or the cluster. */
function baselineRedis(target: RedisTarget, keyPrefix: string): BaselineRedis {
  const client = createRedisClient({
    ...('url' in target ? { REDIS_URL: target.url } : { REDIS_CLUSTER_NODES: clusterNodesOf(target.clusterNodes) }),
    REDIS_KEY_PREFIX: keyPrefix,
    REDIS_TLS: false,
  });
  if (!client) throw new Error('no Redis for the baseline');
  return client;
}

function clusterNodesOf(list: string): Array<{ host: string; port: number }> {
  return list.split(',').map((node) => {
    const [host, port] = node.split(':');
    return { host: host!, port: Number(port) };
  });
}

interface Side {
  api: FastifyInstance;
  apiUrl: string;
  deps: BaselineDeps;
  sessions: Map<string, Record<string, string>>;
}

interface Prepared {
  row: BenchRow;
  side: Side;
  request: HttpRequest;
  /** Null for a row without a bare route. */
  baseline: FastifyInstance | null;
  setup: RowSetup;
}

interface Sides {
  up: Side;
  /** The api whose Redis is taken away, for `redis: 'lost'` rows. */
  lost: Side | null;
  privateRedis: PrivateRedis | null;
}

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

async function listen(server: FastifyInstance): Promise<string> {
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

async function startApi(config: ChildConfig, redis: RedisTarget): Promise<FastifyInstance> {
  const env = loadEnv({
    NODE_ENV: 'production',
    LOG_LEVEL: config.logLevel,
    HOST: '127.0.0.1',
    PORT: '0',
    TRUST_PROXY: 'false',
    DATABASE_URL: config.pooledDatabaseUrl ?? config.databaseUrl,
    // Behind the run's PgBouncer (`--pooler pgbouncer`), as a deployment behind one is configured (DB13, DB14).
    ...(config.pooledDatabaseUrl ? { DATABASE_DIRECT_URL: config.databaseUrl, DATABASE_POOLER: 'transaction' } : {}),
    DATABASE_POOL_SIZE: String(config.poolSize),
    ...redisVariables(redis),
    REDIS_KEY_PREFIX: config.redisKeyPrefix,
    // Shedding as deployed (FS2): event-loop delay and heap; utilisation is off by default in production too.
  });
  return buildApp(env);
}

async function startSide(config: ChildConfig, target: RedisTarget, sql: postgres.Sql): Promise<Side> {
  const api = await startApi(config, target);
  const redis = baselineRedis(target, config.redisKeyPrefix);
  redis.on('error', () => {});
  await redis.connect();
  return { api, apiUrl: await listen(api), deps: { sql, redis }, sessions: new Map() };
}

function inject(server: FastifyInstance, request: HttpRequest) {
  const payload = request.bodyBase64 === undefined ? request.body : Buffer.from(request.bodyBase64, 'base64');
  return server.inject({
    method: request.method,
    url: request.path,
    headers: request.headers,
    ...(payload === undefined ? {} : { payload }),
  });
}

/** Start-up work can hold a fresh api's event loop past the shedding limit (FS2): a shed login is retried. */
const SHED_LOGIN_RETRIES = 10;

async function loginOf(api: FastifyInstance, email: string) {
  for (let attempt = 0; ; attempt += 1) {
    const login = await inject(api, {
      method: 'POST',
      path: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: BENCH_PASSWORD }),
    });
    if (login.statusCode !== 503 || attempt === SHED_LOGIN_RETRIES) return login;
    await sleep(1000);
  }
}

function setupFor(side: Side, size: number): RowSetup {
  return {
    size,
    sql: side.deps.sql,
    inject: async (request) => {
      const answer = await inject(side.api, request);
      return { statusCode: answer.statusCode, body: answer.body };
    },
    async bearer(email) {
      const known = side.sessions.get(email);
      if (known) return known;
      const login = await loginOf(side.api, email);
      if (login.statusCode !== 200) throw new Error(`login as ${email} failed: ${login.statusCode} ${login.body}`);
      const headers = { authorization: `Bearer ${login.json().token}` };
      side.sessions.set(email, headers);
      return headers;
    },
  };
}

/** A bare Fastify at the api's method and path, so the same request fits both; none for a row without one. */
function createBaseline(row: BenchRow, side: Side, request: HttpRequest): FastifyInstance | null {
  if (!row.baseline) return null;
  const server = Fastify({ logger: false });
  const url = new URL(request.path, 'http://baseline');
  server.route({ method: request.method, url: url.pathname, handler: row.baseline(side.deps) });
  return server;
}

function shorten(text: string): string {
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

async function compareJson(prepared: Prepared, baseline: FastifyInstance): Promise<JsonCheck> {
  const [fromApi, fromBaseline] = await Promise.all([
    inject(prepared.side.api, prepared.request),
    inject(baseline, prepared.request),
  ]);
  const comparable = prepared.row.comparable ?? ((body: unknown) => body);
  const same =
    fromApi.statusCode === fromBaseline.statusCode &&
    isDeepStrictEqual(comparable(fromApi.json()), comparable(fromBaseline.json()));
  if (same) return { same };
  return {
    same,
    detail: `api ${fromApi.statusCode} ${shorten(fromApi.body)} · baseline ${fromBaseline.statusCode} ${shorten(fromBaseline.body)}`,
  };
}

/** Waits until the clients have noticed that their Redis went away, so every measured request takes the backup. */
async function untilDisconnected(clients: ({ status: string } | null)[]): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (clients.every((client) => client === null || client.status !== 'ready')) return;
    await sleep(20);
  }
  throw new Error('the Redis clients still report ready after the private Redis stopped');
}

async function repeat(server: FastifyInstance, prepared: Prepared, times: number): Promise<void> {
  for (let made = 0; made < times; made += 1) {
    const response = await inject(server, prepared.request);
    if (response.statusCode >= 300) throw new Error(`${prepared.row.key}: ${response.statusCode} ${response.body}`);
  }
}

async function quietestCount(clients: CountedClients, server: FastifyInstance, prepared: Prepared) {
  let quietest: RequestCounts | undefined;
  for (let trial = 0; trial < COUNT_TRIALS; trial += 1) {
    const counts = await countPerRequest(clients, COUNTED_REQUESTS, () => repeat(server, prepared, COUNTED_REQUESTS));
    const total = (c: RequestCounts) => c.statementsPerRequest + c.redisCommandsPerRequest;
    if (!quietest || total(counts) < total(quietest)) quietest = counts;
  }
  return quietest!;
}

async function countRequests(prepared: Prepared): Promise<CountResult | null> {
  if (prepared.row.next) return null;
  const { baseline } = prepared;
  await repeat(prepared.side.api, prepared, UNCOUNTED_FIRST_REQUESTS);
  if (baseline) await repeat(baseline, prepared, UNCOUNTED_FIRST_REQUESTS);
  return {
    api: await quietestCount(apiClients(prepared.side.api), prepared.side.api, prepared),
    baseline: baseline ? await quietestCount(prepared.side.deps, baseline, prepared) : null,
  };
}

/**
 * How the database ran one baseline request's reads (the api's statements, one for one): each statement with
 * its `EXPLAIN (ANALYZE, BUFFERS)`, run with the parameters it was sent with. For a growth row over its target.
 */
async function explainRequest(prepared: Prepared): Promise<string[]> {
  const { sql } = prepared.side.deps;
  const { baseline } = prepared;
  if (!baseline) return [];
  const sent = await statementsSent(sql, () => repeat(baseline, prepared, 1));
  const reads = sent.filter(({ query }) => /^\s*(select|with)\b/i.test(query));
  const plans: string[] = [];
  for (const { query, parameters } of reads) {
    const plan = await sql
      .unsafe(`explain (analyze, buffers) ${query}`, parameters as postgres.ParameterOrJSON<never>[])
      .then((rows) => rows.map((row) => String(row['QUERY PLAN'])).join('\n'))
      .catch((error: unknown) => `EXPLAIN failed: ${error instanceof Error ? error.message : String(error)}`);
    plans.push(`${query}\n\n${plan}`);
  }
  return plans;
}

class Profiler {
  private session: Session | null = null;

  async start(): Promise<null> {
    this.session = new Session();
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 250 });
    await this.session.post('Profiler.start');
    return null;
  }

  async stop(file: string): Promise<null> {
    if (!this.session) throw new Error('the profiler is not running');
    const { profile } = await this.session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    this.session.disconnect();
    this.session = null;
    return null;
  }
}

/** The api's `/metrics` on a listener of its own, as apps/api/src/server.ts starts it. */
async function serveMetrics(api: FastifyInstance): Promise<string> {
  const server = createMetricsServer(api.metrics.registry, (error) =>
    api.log.error({ err: error }, 'metrics scrape failed'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // No close: the child exits when it is told to stop.
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the metrics server has no TCP address');
  return `http://127.0.0.1:${address.port}/metrics`;
}

async function startSides(config: ChildConfig, rows: BenchRow[], sql: postgres.Sql): Promise<Sides> {
  const up = await startSide(
    config,
    config.redisClusterNodes ? { clusterNodes: config.redisClusterNodes } : { url: config.redisUrl },
    sql,
  );
  if (!rows.some((row) => row.redis === 'lost')) return { up, lost: null, privateRedis: null };
  const privateRedis = await startPrivateRedis();
  process.on('exit', () => void privateRedis.stop());
  return { up, lost: await startSide(config, { url: privateRedis.url }, sql), privateRedis };
}

/** Logs in and builds each row's request while every Redis is still up. */
async function prepareRows(rows: BenchRow[], sides: Sides, size: number): Promise<Prepared[]> {
  const prepared: Prepared[] = [];
  for (const row of rows) {
    const side = row.redis === 'lost' ? sides.lost! : sides.up;
    const setup = setupFor(side, size);
    const request = await row.request(setup);
    prepared.push({ row, side, request, baseline: createBaseline(row, side, request), setup });
  }
  return prepared;
}

async function takeRedisAway({ lost, privateRedis }: Sides): Promise<void> {
  if (!lost || !privateRedis) return;
  await privateRedis.stop();
  await untilDisconnected([apiClients(lost.api).redis as { status: string } | null, lost.deps.redis]);
}

async function targetOf(item: Prepared): Promise<RowTarget> {
  return {
    key: item.row.key,
    apiUrl: item.side.apiUrl,
    baselineUrl: item.baseline ? await listen(item.baseline) : null,
    request: item.request,
    json: item.baseline ? await compareJson(item, item.baseline) : null,
  };
}

type Handlers = {
  [K in ChildCommand['type']]: (command: Extract<ChildCommand, { type: K }>) => Promise<ChildReplies[K]>;
};

function commandHandlers(prepared: Prepared[], sides: Sides, sql: postgres.Sql): Handlers {
  const profiler = new Profiler();
  const find = (key: string) => {
    const item = prepared.find((candidate) => candidate.row.key === key);
    if (!item) throw new Error(`row ${key} is not loaded in this child`);
    return item;
  };
  return {
    count: (command) => countRequests(find(command.key)),
    next: async (command) => {
      const { row, setup } = find(command.key);
      if (!row.next) throw new Error(`row ${command.key} makes no requests of its own`);
      return row.next(setup);
    },
    background: async (command) => {
      const { row, setup } = find(command.key);
      if (!row.background) throw new Error(`row ${command.key} has no background work`);
      if (!command.reset) return row.background.run(setup);
      await row.background.reset?.(setup);
      return { seconds: 0, detail: 'reset' };
    },
    plans: (command) => explainRequest(find(command.key)),
    reference: async (command) => {
      const reference = find(command.key).row.reference;
      if (!reference) throw new Error(`row ${command.key} has no reference`);
      return reference.measure(command.seconds, command.concurrency);
    },
    'profile-start': () => profiler.start(),
    'profile-stop': (command) => profiler.stop(command.file),
    'cpu-usage': async () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    },
    stop: async () => {
      for (const item of prepared) await item.baseline?.close();
      for (const side of [sides.up, sides.lost]) {
        await side?.api.close();
        side?.deps.redis.disconnect();
      }
      await sql.end({ timeout: 5 });
      await sides.privateRedis?.stop();
      return null;
    },
  };
}

function serve(handlers: Handlers): void {
  process.on('message', async ({ id, command }: ParentMessage) => {
    try {
      const handler = handlers[command.type] as (command: ChildCommand) => Promise<unknown>;
      await send({ type: 'reply', id, result: await handler(command) });
    } catch (error) {
      await send({ type: 'reply', id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
    if (command.type === 'stop') process.exit(0);
  });
  // An orphaned child would hold ports and connections: it goes when the parent does.
  process.on('disconnect', () => process.exit(1));
}

async function main(): Promise<void> {
  // tsx turns source-mapped stack traces on; production runs `node dist/server.js` without them, and
  // mapping the stack of every logged error would charge the api for something it does not pay there.
  process.setSourceMapsEnabled(false);
  const config = JSON.parse(process.env[CHILD_CONFIG_VARIABLE] ?? '') as ChildConfig;
  if (config.telemetry) {
    // As apps/api/src/server.ts: before the app is built, from the standard OTEL_* variables.
    Object.assign(process.env, tracingEnvironment(config.telemetry));
    await startTracing('nestegg-api');
  }
  const rows = config.rowKeys.map(rowByKey);
  const sql = postgres(config.databaseUrl, { max: config.poolSize, onnotice: () => {} });
  const sides = await startSides(config, rows, sql);
  const prepared = await prepareRows(rows, sides, config.size);
  await takeRedisAway(sides);
  const targets: RowTarget[] = [];
  for (const item of prepared) targets.push(await targetOf(item));
  const metricsUrl = config.telemetry ? await serveMetrics(sides.up.api) : null;
  serve(commandHandlers(prepared, sides, sql));
  await send({ type: 'ready', targets, metricsUrl });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
