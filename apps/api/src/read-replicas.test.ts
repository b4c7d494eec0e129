/**
 * Read replicas through HTTP (decisions DB20–DB26, issue 40 part 3): a private primary with a streaming standby
 * (`pg_basebackup`, hot standby), the api built on both (`DATABASE_URL` the primary, `DATABASE_READ_URL` the standby).
 * The standby's lag is made visible by pausing its replay (`pg_wal_replay_pause()`): a member who writes reads their
 * own write at once (read-your-writes → the primary) while another member's lists, served by the replica, show it
 * only once the replay resumes. Then the replica stopped (reads on the primary, `/readyz` ready, the fallback
 * counted, one log line), and a replica past the lag limit skipped. Prints what it measured.
 */
import { Writable } from 'node:stream';
import { migrateDatabase } from '@nestegg/db/migrate';
import { createTestRedis, startPrivateReplicatedPostgres, type TestRedis } from '@nestegg/testing';
import type { FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { loadEnv } from './env.js';
import { insertPost } from './modules/board/posts/board.fixture.js';
import { entries } from './modules/ledger/statistics/ledger.fixture.js';
import { createMemberWithSession, testEnvironment } from './test/app.js';
import { bodyOf, contractClient } from './test/client.js';

type Pair = Awaited<ReturnType<typeof startPrivateReplicatedPostgres>>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** Log lines the app writes (JSON), for the "once per change of state" checks. */
function logSink() {
  const lines: Array<{ msg: string; replica?: string }> = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { lines, logger: { level: 'info', stream } };
}

async function counter(app: FastifyInstance, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric(name)?.get();
  // The sum over the samples carrying these labels (a label left out is summed over).
  return (metric?.values ?? [])
    .filter((sample) => Object.entries(labels).every(([key, wanted]) => String(sample.labels[key]) === wanted))
    .reduce((sum, sample) => sum + sample.value, 0);
}

let pair: Pair;
let redis: TestRedis;
let primary: postgres.Sql;
let standby: postgres.Sql;
let databaseUrl: string;
let readUrl: string;

/** Until the standby has replayed everything the primary wrote so far. */
async function caughtUp(): Promise<void> {
  const [{ lsn }] = await primary<[{ lsn: string }]>`select pg_current_wal_lsn()::text as lsn`;
  await until('the standby replays the primary', async () => {
    const [row] = await standby<[{ behind: boolean }]>`select pg_last_wal_replay_lsn() < ${lsn}::pg_lsn as behind`;
    return !row.behind;
  });
}

async function appWith(overrides: Record<string, string>, logger?: object): Promise<FastifyInstance> {
  const env = loadEnv(
    testEnvironment(
      { databaseUrl, redisUrl: redis.url, redisKeyPrefix: redis.keyPrefix },
      { DATABASE_READ_URL: readUrl, DATABASE_READ_PROBE_INTERVAL_MS: '50', ...overrides },
    ),
  );
  return buildApp(env, logger ? { logger } : {});
}

beforeAll(async () => {
  [pair, redis] = await Promise.all([startPrivateReplicatedPostgres(), createTestRedis()]);
  const admin = postgres(pair.primary.url, { max: 1, onnotice: () => {} });
  await admin`create database nestegg`;
  await admin.end();
  databaseUrl = `postgres://postgres@127.0.0.1:${pair.primary.port}/nestegg`;
  readUrl = `postgres://postgres@127.0.0.1:${pair.standby.port}/nestegg?target_session_attrs=standby`;
  await migrateDatabase(databaseUrl);
  primary = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  standby = postgres(`postgres://postgres@127.0.0.1:${pair.standby.port}/nestegg`, { max: 1, onnotice: () => {} });
  await caughtUp();
}, 120_000);

afterAll(async () => {
  await primary?.end();
  await standby?.end({ timeout: 1 }).catch(() => {});
  await redis?.cleanup();
  await pair?.stop();
});

describe('replay paused: the writer reads from the primary, everyone else from the replica', () => {
  const sink = logSink();
  let app: FastifyInstance;

  beforeAll(async () => {
    // A lag limit the paused replay stays under for the whole describe.
    app = await appWith({ DATABASE_READ_MAX_LAG_MS: '600000' }, sink.logger);
  }, 60_000);
  afterEach(async () => {
    await standby`select pg_wal_replay_resume()`.catch(() => {});
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a post is seen at once by its author and by others only once replayed', async () => {
    const [author, reader] = [await createMemberWithSession(app), await createMemberWithSession(app)];
    const [authorApi, readerApi, anonymous] = [
      contractClient(app, { token: author.token }),
      contractClient(app, { token: reader.token }),
      contractClient(app),
    ];
    await caughtUp();
    await standby`select pg_wal_replay_pause()`;
    const before = {
      replica: await counter(app, 'nestegg_db_read_requests_total', { target: 'replica' }),
      notReplayed: await counter(app, 'nestegg_db_read_replica_fallbacks_total', { reason: 'not_replayed' }),
    };

    const post = bodyOf(
      await authorApi.board.createPost({ body: { category: 'community', title: 'Fresh', body: 'Just written' } }),
      201,
    );
    // The author: their list, the post itself and its comments come from the primary.
    const authorsList = bodyOf(await authorApi.board.listPosts({ query: { category: 'community' } }), 200);
    expect(authorsList.items.map((item) => item.id)).toContain(post.id);
    expect(bodyOf(await authorApi.board.getPost({ params: { id: post.id } }), 200).title).toBe('Fresh');
    bodyOf(await authorApi.board.listComments({ params: { id: post.id }, query: {} }), 200);

    // Another member and an anonymous caller: the replica, which has not replayed it.
    const othersList = bodyOf(await readerApi.board.listPosts({ query: { category: 'community' } }), 200);
    expect(othersList.items.map((item) => item.id)).not.toContain(post.id);
    expect((await readerApi.board.getPost({ params: { id: post.id } })).status).toBe(404);
    const anonymousList = bodyOf(await anonymous.board.listPosts({ query: { category: 'community' } }), 200);
    expect(anonymousList.items.map((item) => item.id)).not.toContain(post.id);

    expect(await counter(app, 'nestegg_db_read_replica_fallbacks_total', { reason: 'not_replayed' })).toBe(
      before.notReplayed + 3,
    );
    expect(await counter(app, 'nestegg_db_read_requests_total', { target: 'replica' })).toBe(before.replica + 3);

    const resumed = Date.now();
    await standby`select pg_wal_replay_resume()`;
    const seen = await until('the other member sees the post', async () => {
      const list = bodyOf(await readerApi.board.listPosts({ query: { category: 'community' } }), 200);
      return list.items.some((item) => item.id === post.id) && Date.now();
    });
    console.log(`[read-replicas] post visible to another member ${seen - resumed} ms after the replay resumed`);
    // Once replayed (and the replica's position probed again), the author's reads go to the replica too.
    await until("the author's reads go to the replica", async () => {
      const labels = { target: 'replica', consistency: 'read-your-writes' };
      const before = await counter(app, 'nestegg_db_read_requests_total', labels);
      bodyOf(await authorApi.board.listPosts({ query: { category: 'community' } }), 200);
      return (await counter(app, 'nestegg_db_read_requests_total', labels)) > before;
    });
  });

  it("a ledger entry is in its member's list, statistics and changes at once, a wallet in their wallets; a write the api did not see waits for the replay", async () => {
    const writer = await createMemberWithSession(app, { plan: 'PREMIUM' });
    const quiet = await createMemberWithSession(app, { plan: 'PREMIUM' });
    const [writerApi, quietApi] = [
      contractClient(app, { token: writer.token }),
      contractClient(app, { token: quiet.token }),
    ];
    await caughtUp();
    await standby`select pg_wal_replay_pause()`;

    const entry = { type: 'EXPENSE', amount: 4_200, date: '2026-05-03', memo: 'Lunch' } as const;
    const written = Date.now();
    const created = bodyOf(await writerApi.ledger.entries.create({ body: entry }), 201);
    const writeMs = Date.now() - written;
    const list = bodyOf(await writerApi.ledger.entries.list({ query: {} }), 200);
    expect(list.items.map((item) => item.id)).toContain(created.id);
    const monthly = bodyOf(await writerApi.ledger.stats.monthly({ query: { year: 2026, month: 5 } }), 200);
    expect(monthly.expense).toBe(4_200);
    const changes = bodyOf(await writerApi.ledger.changes.list({ query: {} }), 200);
    expect(changes.changed.entries.map((item) => item.id)).toContain(created.id);
    const wallet = bodyOf(await writerApi.ledger.wallets.create({ body: { name: 'Cash', type: 'CASH' } }), 201);
    const wallets = bodyOf(await writerApi.ledger.wallets.list(), 200);
    expect(wallets.items.map((item) => item.id)).toContain(wallet.id);

    // A row the api did not write for this member (no write position kept): the replica serves their reads.
    await entries(app, quiet, [{ type: 'INCOME', amount: 900, date: '2026-05-04' }]);
    expect(bodyOf(await quietApi.ledger.entries.list({ query: {} }), 200).items).toEqual([]);
    expect(bodyOf(await quietApi.ledger.stats.monthly({ query: { year: 2026, month: 5 } }), 200).income).toBe(0);
    expect(bodyOf(await quietApi.ledger.changes.list({ query: {} }), 200).changed.entries).toEqual([]);
    // Their wallet list too is the replica's (nothing written since the pause).
    expect(bodyOf(await quietApi.ledger.wallets.list(), 200).items).toEqual([]);

    await standby`select pg_wal_replay_resume()`;
    await until('the replayed entry is listed', async () => {
      const { items } = bodyOf(await quietApi.ledger.entries.list({ query: {} }), 200);
      return items.length === 1;
    });
    expect(bodyOf(await quietApi.ledger.stats.monthly({ query: { year: 2026, month: 5 } }), 200).income).toBe(900);
    // The position is kept in Redis under the member, inside the api's key prefix (a hash tag for a cluster).
    expect(await redis.client.get(`write-lsn:{${writer.id}}`)).toMatch(/^[0-9a-f]{16}$/);
    // What keeping a write position adds to each write: the primary's position, then the script in Redis.
    const timings: number[] = [];
    for (let i = 0; i < 50; i++) {
      const began = performance.now();
      await app.readReplicas!.recordWrite(writer.id);
      timings.push(performance.now() - began);
    }
    timings.sort((a, b) => a - b);
    console.log(
      `[read-replicas] an entry's write answered in ${writeMs} ms; keeping a write position: ` +
        `median ${timings[25]!.toFixed(2)} ms, p95 ${timings[47]!.toFixed(2)} ms (50)`,
    );
  });

  it('the replica stopped: reads on the primary, /readyz ready, the fallback counted and said once; back when it returns', async () => {
    const member = await createMemberWithSession(app);
    const api = contractClient(app, { token: member.token });
    const post = bodyOf(
      await api.board.createPost({ body: { category: 'tips', title: 'While down', body: 'Primary only' } }),
      201,
    );
    const unavailableBefore = await counter(app, 'nestegg_db_read_replica_fallbacks_total', {
      reason: 'unavailable',
    });
    await standby.end({ timeout: 1 });
    await pair.standby.stopServer('immediate');
    const stopped = Date.now();
    // Right away, before any probe noticed: the statement sent to the replica runs again on the primary.
    const anonymous = contractClient(app);
    const first = bodyOf(await anonymous.board.listPosts({ query: { category: 'tips' } }), 200);
    expect(first.items.map((item) => item.id)).toContain(post.id);
    const firstMs = Date.now() - stopped;
    for (let i = 0; i < 5; i++) {
      const list = bodyOf(await anonymous.board.listPosts({ query: { category: 'tips' } }), 200);
      expect(list.items.map((item) => item.id)).toContain(post.id);
    }
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready' });
    expect(await counter(app, 'nestegg_db_read_replica_up', {})).toBe(0);
    expect(
      await counter(app, 'nestegg_db_read_replica_fallbacks_total', { reason: 'unavailable' }),
    ).toBeGreaterThanOrEqual(unavailableBefore + 6);
    await sleep(500); // ten probes meanwhile, all failing
    const downLines = sink.lines.filter((line) => line.msg.includes('is unavailable'));
    expect(downLines).toHaveLength(1);

    await pair.standby.startServer();
    const started = Date.now();
    standby = postgres(`postgres://postgres@127.0.0.1:${pair.standby.port}/nestegg`, { max: 1, onnotice: () => {} });
    const back = await until(
      'reads go to the replica again',
      async () => {
        const before = await counter(app, 'nestegg_db_read_requests_total', { target: 'replica' });
        bodyOf(await anonymous.board.listPosts({ query: { category: 'tips' } }), 200);
        return (await counter(app, 'nestegg_db_read_requests_total', { target: 'replica' })) > before && Date.now();
      },
      30_000,
    );
    expect(sink.lines.filter((line) => line.msg.includes('serves reads')).length).toBeGreaterThanOrEqual(2);
    console.log(
      `[read-replicas] replica stopped: first read answered from the primary in ${firstMs} ms; ` +
        `replica serving again ${back - started} ms after its restart`,
    );
  }, 60_000);
});

describe('a replica past DATABASE_READ_MAX_LAG_MS is skipped', () => {
  const sink = logSink();
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await appWith({ DATABASE_READ_MAX_LAG_MS: '300' }, sink.logger);
  }, 60_000);
  afterEach(async () => {
    await standby`select pg_wal_replay_resume()`.catch(() => {});
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lagging: everyone reads from the primary, the lag shows, one log line each way', async () => {
    const member = await createMemberWithSession(app);
    const api = contractClient(app, { token: member.token });
    await caughtUp();
    await standby`select pg_wal_replay_pause()`;
    // Written behind the api's back (no write position kept): only the lag limit keeps it from being missed.
    const row = await insertPost(app, member.id, { category: 'saving', title: 'Behind the back' });
    await until(
      'the lag is past the limit',
      async () => (await counter(app, 'nestegg_db_read_replica_lag_seconds', {})) > 0.3,
    );
    const lagging = await counter(app, 'nestegg_db_read_replica_fallbacks_total', { reason: 'lagging' });
    const list = bodyOf(await contractClient(app).board.listPosts({ query: { category: 'saving' } }), 200);
    expect(list.items.map((item) => item.id)).toContain(row.id);
    bodyOf(await api.board.listPosts({ query: { category: 'saving' } }), 200);
    expect(await counter(app, 'nestegg_db_read_replica_fallbacks_total', { reason: 'lagging' })).toBe(lagging + 2);
    expect(await counter(app, 'nestegg_db_read_replica_lag_bytes', {})).toBeGreaterThan(0);
    expect(sink.lines.filter((line) => line.msg.includes('lags behind'))).toHaveLength(1);

    await standby`select pg_wal_replay_resume()`;
    await until(
      'the replica serves again',
      async () => (await counter(app, 'nestegg_db_read_replica_lag_seconds', {})) === 0,
    );
    await until('a read goes to the replica', async () => {
      const before = await counter(app, 'nestegg_db_read_requests_total', { target: 'replica' });
      bodyOf(await contractClient(app).board.listPosts({ query: { category: 'saving' } }), 200);
      return (await counter(app, 'nestegg_db_read_requests_total', { target: 'replica' })) > before;
    });
  }, 60_000);
});

describe('several hosts and their attributes', () => {
  let preferStandby: FastifyInstance;
  let standbyOnly: FastifyInstance;
  const standbyOnlySink = logSink();

  beforeAll(async () => {
    const hosts = `127.0.0.1:${pair.standby.port},127.0.0.1:${pair.primary.port}`;
    // The primary listed as a reader too: with prefer-standby it serves reads only while the standby cannot.
    preferStandby = await appWith({
      DATABASE_READ_URL: `postgres://postgres@${hosts}/nestegg?target_session_attrs=prefer-standby`,
      DATABASE_READ_MAX_LAG_MS: '600000',
    });
    // Only the primary, which is no standby: nothing is read from it as a replica.
    standbyOnly = await appWith(
      {
        DATABASE_READ_URL: `postgres://postgres@127.0.0.1:${pair.primary.port}/nestegg?target_session_attrs=standby`,
      },
      standbyOnlySink.logger,
    );
  }, 60_000);
  afterEach(async () => {
    await standby`select pg_wal_replay_resume()`.catch(() => {});
  });
  afterAll(async () => {
    await preferStandby?.close();
    await standbyOnly?.close();
  });

  it('prefer-standby: reads on the standby while it serves, on the other host when it is down', async () => {
    const author = await createMemberWithSession(preferStandby);
    const anonymous = contractClient(preferStandby);
    await caughtUp();
    await standby`select pg_wal_replay_pause()`;
    const row = await insertPost(preferStandby, author.id, { category: 'saving', title: 'Prefer the standby' });
    // Round-robin would alternate between two usable hosts: every read shows the standby's older state.
    for (let i = 0; i < 4; i++) {
      const list = bodyOf(await anonymous.board.listPosts({ query: { category: 'saving' } }), 200);
      expect(list.items.map((item) => item.id)).not.toContain(row.id);
    }
    await standby.end({ timeout: 1 });
    await pair.standby.stopServer('immediate');
    try {
      await until('the primary serves as the reader', async () => {
        const before = await counter(preferStandby, 'nestegg_db_read_requests_total', { target: 'replica' });
        const list = bodyOf(await anonymous.board.listPosts({ query: { category: 'saving' } }), 200);
        const onReplica =
          (await counter(preferStandby, 'nestegg_db_read_requests_total', { target: 'replica' })) > before;
        return onReplica && list.items.some((item) => item.id === row.id);
      });
    } finally {
      await pair.standby.startServer();
      standby = postgres(`postgres://postgres@127.0.0.1:${pair.standby.port}/nestegg`, {
        max: 1,
        onnotice: () => {},
      });
    }
  }, 60_000);

  it('standby: a host that is not in recovery serves nothing, and says so once', async () => {
    const anonymous = contractClient(standbyOnly);
    const before = await counter(standbyOnly, 'nestegg_db_read_replica_fallbacks_total', { reason: 'not_standby' });
    bodyOf(await anonymous.board.listPosts({ query: {} }), 200);
    bodyOf(await anonymous.board.listPosts({ query: {} }), 200);
    expect(await counter(standbyOnly, 'nestegg_db_read_replica_fallbacks_total', { reason: 'not_standby' })).toBe(
      before + 2,
    );
    expect(standbyOnlySink.lines.filter((line) => line.msg.includes('is no standby'))).toHaveLength(1);
  });
});
