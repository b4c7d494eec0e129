/**
 * Issue 40 part 1, at the driver: a pool on a URL naming several hosts (decision FO33). postgres.js 3.4.9 reads such a
 * URL, but, unpatched: with target_session_attrs=read-write it takes a hot standby (PostgreSQL 14 and later report it
 * with default_transaction_read_only=off); with no host usable it cycles through them without end and the query never
 * settles; a host that times out, or answers 57P03 (shutting down), fails the query instead of passing to the next
 * host; and a session that refused a write as read-only stays in the pool. Each case here fails on that driver.
 *
 * On servers of the test's own: a primary with a streaming standby, and another server, on loopback ports.
 */
import { createServer, type Server, type Socket } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../src/availability';
import { createDb } from '../src/client';
import {
  type PrivatePostgres,
  type PrivateReplicatedPostgres,
  startPrivatePostgres,
  startPrivateReplicatedPostgres,
} from './private-postgres';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const APP = 'nestegg-multi-host-test';

/** A host that takes the TCP connection and then `behaviour`: closes it at once, or never answers. */
async function misbehavingHost(
  behaviour: 'close' | 'silent',
): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    if (behaviour === 'close') socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: connections are refused. */
async function refusedPort(): Promise<number> {
  const host = await misbehavingHost('close');
  await host.close();
  return host.port;
}

/** Settles `promise` within `ms`, or reports that it hung. */
function within<T>(promise: Promise<T>, ms: number): Promise<{ value?: T; error?: unknown; hung?: true }> {
  return Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    sleep(ms).then(() => ({ hung: true as const })),
  ]);
}

function pool(hosts: Array<{ port: number }>, options: postgres.Options<Record<string, never>> = {}) {
  return postgres({
    host: hosts.map(() => '127.0.0.1') as unknown as string,
    port: hosts.map((host) => host.port) as unknown as number,
    user: 'postgres',
    database: 'postgres',
    max: 2,
    target_session_attrs: 'read-write',
    connect_timeout: 2,
    backoff: () => 0.1,
    onnotice: () => {},
    connection: { application_name: APP },
    ...options,
  });
}

const portOf = async (sql: postgres.Sql) => (await sql<{ port: number }[]>`select inet_server_port() as port`)[0]!.port;

describe('a pool on several hosts', () => {
  let pair: PrivateReplicatedPostgres;
  let other: PrivatePostgres;

  beforeAll(async () => {
    [pair, other] = await Promise.all([startPrivateReplicatedPostgres(), startPrivatePostgres()]);
    for (const url of [pair.primary.url, other.url]) {
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      await admin`create table probe (id serial primary key, at timestamptz default now())`;
      await admin.end();
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([pair?.stop(), other?.stop()]);
  });

  it('with target_session_attrs=read-write, passes over a hot standby listed first', async () => {
    const sql = pool([pair.standby, pair.primary], { max: 4 });
    try {
      const ports = await Promise.all(
        Array.from({ length: 4 }, () => sql<{ port: number }[]>`select inet_server_port() as port, pg_sleep(0.05)`),
      );
      expect(ports.map((rows) => rows[0]!.port)).toEqual([4, 4, 4, 4].map(() => pair.primary.port));
    } finally {
      await sql.end();
    }
  });

  it('fails the query, as with one host, when no host is writable, and backs off between rounds', async () => {
    const refused = await refusedPort();
    const bothDown = pool([{ port: refused }, { port: await refusedPort() }]);
    const standbyOnly = pool([{ port: refused }, pair.standby]);
    const closing = await misbehavingHost('close');
    const closingOnly = pool([closing, { port: refused }], { backoff: () => 0.25 });
    try {
      const down = await within(bothDown`select 1`, 3_000);
      expect(down.hung).toBeUndefined();
      expect((down.error as { code?: string }).code).toBe('ECONNREFUSED');

      const readOnly = await within(standbyOnly`select 1`, 3_000);
      expect(readOnly.hung).toBeUndefined();
      expect(isDatabaseUnavailable(readOnly.error)).toBe(true);
      // Whichever host the round ended on: the standby is named when it was the last.
      expect(['ECONNREFUSED', 'CONNECTION_TARGET_SESSION_ATTRS']).toContain((readOnly.error as { code?: string }).code);
      const rejected = await within(pool([pair.standby])`select 1`, 3_000);
      expect((rejected.error as Error).message).toBe(
        `target_session_attrs=read-write refused 127.0.0.1:${pair.standby.port} (in_hot_standby=on, default_transaction_read_only=off)`,
      );

      // A host that closes every connection at once: each round tries it once, then waits out the backoff.
      const began = Date.now();
      let failures = 0;
      while (Date.now() - began < 1_500) {
        const outcome = await within(closingOnly`select 1`, 3_000);
        expect(outcome.hung).toBeUndefined();
        failures += 1;
      }
      expect(failures).toBeGreaterThan(2);
      expect(closing.accepted()).toBeLessThanOrEqual(failures + 2);
    } finally {
      await Promise.all([bothDown, standbyOnly, closingOnly].map((sql) => sql.end({ timeout: 0 })));
      await closing.close();
    }
  });

  it('gives each host its own connect timeout, then tries the next', async () => {
    const silent = await misbehavingHost('silent');
    const sql = pool([silent, pair.primary], { connect_timeout: 1 });
    try {
      const began = Date.now();
      const outcome = await within(portOf(sql), 5_000);
      expect(outcome.value).toBe(pair.primary.port);
      expect(Date.now() - began).toBeGreaterThanOrEqual(900);
      expect(silent.accepted()).toBe(1);
    } finally {
      await sql.end({ timeout: 0 });
      await silent.close();
    }
  });

  it('passes over a host that cannot take connections now (57P03, shutting down)', async () => {
    const holder = postgres(other.url, { max: 1, onnotice: () => {} });
    await holder`select 1`;
    // Smart shutdown waits for the open session; meanwhile new connections get 57P03.
    const stopping = other.stopServer('smart');
    const probe = async () => {
      const single = postgres(other.url, { max: 1, onnotice: () => {}, connect_timeout: 2 });
      const code = await single`select 1`.then(
        () => 'ok',
        (error: { code?: string }) => error.code,
      );
      await single.end({ timeout: 0 });
      return code;
    };
    for (let tries = 0; tries < 50 && (await probe()) !== '57P03'; tries += 1) await sleep(100);
    expect(await probe()).toBe('57P03');
    const sql = pool([other, pair.primary]);
    try {
      expect((await within(portOf(sql), 5_000)).value).toBe(pair.primary.port);
    } finally {
      await sql.end({ timeout: 0 });
      await holder.end();
      await stopping;
      await other.startServer();
    }
  });

  it('replaces a session that refused a write as read-only, and the next write reaches the writable host', async () => {
    const handle = createDb(`postgres://postgres@127.0.0.1:${other.port},127.0.0.1:${pair.primary.port}/postgres`, {
      max: 1,
      applicationName: APP,
      connectTimeout: 2,
      reconnectBackoffMaxSeconds: 0.1,
    });
    const admin = postgres(other.url, { max: 1, onnotice: () => {} });
    try {
      expect(await portOf(handle.sql)).toBe(other.port);
      // A primary being demoted: read-only from now on, for its existing sessions too.
      await admin`alter system set default_transaction_read_only = on`;
      await admin`select pg_reload_conf()`;
      await sleep(200);
      const refused = await handle.sql`insert into probe default values`.catch((error: unknown) => error);
      expect((refused as { code?: string }).code).toBe('25006');
      expect(isDatabaseUnavailable(refused)).toBe(true);
      // The same pool's next write: a new connection, which skips the read-only server.
      const [row] = await handle.sql<
        { port: number }[]
      >`insert into probe default values returning inet_server_port() as port`;
      expect(row!.port).toBe(pair.primary.port);
      await sleep(200);
      const [left] = await admin<{ sessions: number }[]>`
        select count(*)::int as sessions from pg_stat_activity where application_name = ${APP}`;
      expect(left?.sessions).toBe(0);
    } finally {
      await handle.close();
      await admin`alter system reset default_transaction_read_only`;
      await admin`select pg_reload_conf()`;
      await admin.end();
    }
  });

  it('follows a failover: answers while no host is writable, writes to the promoted standby, listens there again', async () => {
    const handle = createDb(pair.url('postgres'), {
      max: 4,
      applicationName: APP,
      connectTimeout: 1.5,
      acquireTimeoutMs: 2_000,
      reconnectBackoffMaxSeconds: 0.25,
    });
    const heard: string[] = [];
    await handle.sql.listen('failover_probe', (payload) => heard.push(payload));
    const outcomes: Array<{ at: number; ok: boolean; port?: number; ms: number; unavailable?: boolean }> = [];
    let promotedAt = Number.POSITIVE_INFINITY;
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const began = Date.now();
        const outcome = await within(
          handle.db.$client.begin(
            (tx) => tx<{ port: number }[]>`insert into probe default values returning inet_server_port() as port`,
          ),
          10_000,
        );
        if (outcome.hung) throw new Error('a write hung');
        const ms = Date.now() - began;
        if (outcome.value) outcomes.push({ at: Date.now(), ok: true, port: outcome.value[0]!.port, ms });
        else outcomes.push({ at: Date.now(), ok: false, ms, unavailable: isDatabaseUnavailable(outcome.error) });
        await sleep(20);
      }
    };
    try {
      expect(await portOf(handle.sql)).toBe(pair.primary.port);
      const writers = [writer(), writer(), writer()];
      await sleep(500);
      await pair.primary.stopServer('immediate');
      await sleep(200);
      await pair.standby.promote();
      promotedAt = Date.now();
      await sleep(3_000);
      stop = true;
      await Promise.all(writers);

      const failed = outcomes.filter((outcome) => !outcome.ok);
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.every((outcome) => outcome.unavailable)).toBe(true);
      expect(Math.max(...outcomes.map((outcome) => outcome.ms))).toBeLessThan(2_500);
      const firstAfter = outcomes.find((outcome) => outcome.ok && outcome.at >= promotedAt);
      expect(firstAfter?.port).toBe(pair.standby.port);
      expect(firstAfter!.at - promotedAt).toBeLessThan(2_000);
      expect(outcomes.filter((outcome) => outcome.at > promotedAt + 1_000).every((outcome) => outcome.ok)).toBe(true);

      const notifier = postgres(pair.standby.url, { max: 1, onnotice: () => {} });
      try {
        for (let tries = 0; tries < 50 && !heard.includes('after'); tries += 1) {
          await notifier.notify('failover_probe', 'after');
          await sleep(100);
        }
      } finally {
        await notifier.end();
      }
      expect(heard).toContain('after');
    } finally {
      stop = true;
      await handle.close(0);
    }
  });
});
