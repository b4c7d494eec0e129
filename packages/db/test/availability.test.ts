import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cappedBackoff } from '../src/availability';
import {
  createDb,
  DatabaseAcquireTimeoutError,
  DatabaseUnreachableError,
  isDatabaseUnavailable,
  member,
} from '../src/index';
import { migrateDatabase } from '../src/migrate';

/** Issue 17, item 2: bounded waits for a pooled connection and for a statement (decision FO1). */

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `nestegg_db_availability_${randomBytes(6).toString('hex')}`;
const url = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
let admin: postgres.Sql;

beforeAll(async () => {
  admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  await migrateDatabase(url);
});
afterAll(async () => {
  await admin.unsafe(`drop database if exists "${dbName}" with (force)`);
  await admin.end();
});

describe('createDb timeouts', () => {
  it('a statement waiting longer than the acquire timeout for a connection fails, and never runs later', async () => {
    const handle = createDb(url, { max: 1, acquireTimeoutMs: 150 });
    try {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started = () => {};
      const holding = new Promise<void>((resolve) => {
        started = resolve;
      });
      const transaction = handle.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        started();
        await held;
      });
      await holding;

      const email = `late-${randomBytes(4).toString('hex')}@example.com`;
      const began = performance.now();
      const error = await handle.db
        .insert(member)
        .values({ email, emailVerified: true, displayName: 'Late', role: 'USER', plan: 'FREE' })
        .then(
          () => null,
          (rejected: unknown) => rejected,
        );
      const waited = performance.now() - began;
      // drizzle wraps what the client rejects with ("Failed query: …", the driver's error as `cause`).
      expect((error as { cause?: unknown }).cause).toBeInstanceOf(DatabaseAcquireTimeoutError);
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(waited).toBeGreaterThanOrEqual(140);
      expect(waited).toBeLessThan(1000);
      // A transaction waits the same way.
      const inTransaction = await handle.db
        .transaction(async (tx) => tx.execute(sql`select 1`))
        .then(
          () => null,
          (rejected: unknown) => rejected,
        );
      expect(isDatabaseUnavailable(inTransaction)).toBe(true);

      release();
      await transaction;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await handle.db.select().from(member).where(eq(member.email, email))).toEqual([]);
      // The connection serves the next caller at once.
      expect(await handle.db.execute(sql`select 1 as one`)).toEqual([{ one: 1 }]);
    } finally {
      await handle.close();
    }
  });

  it('callers within the bound wait their turn, in order', async () => {
    const handle = createDb(url, { max: 2, acquireTimeoutMs: 5000 });
    try {
      const order: number[] = [];
      await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          handle.db.execute(sql`select pg_sleep(0.02)`).then(() => order.push(index)),
        ),
      );
      expect(order).toHaveLength(8);
    } finally {
      await handle.close();
    }
  });

  it('two statements share a connection and a third waits; a transaction takes a whole connection (FO32)', async () => {
    const handle = createDb(url, { max: 1, acquireTimeoutMs: 150 });
    try {
      const gate = handle.gate!;
      const settle = (query: PromiseLike<unknown>) =>
        Promise.resolve(query).then(
          () => 'ok',
          (error: unknown) => (error as { cause?: unknown }).cause ?? error,
        );
      const sleeps = Array.from({ length: 3 }, () => settle(handle.db.execute(sql`select pg_sleep(0.3)`)));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect([gate.inUse, gate.pending]).toEqual([1, 1]);
      const [first, second, third] = await Promise.all(sleeps);
      // Pipelined on the one connection, both ran; the third waited past the bound and never reached the driver.
      expect([first, second]).toEqual(['ok', 'ok']);
      expect(third).toBeInstanceOf(DatabaseAcquireTimeoutError);

      const statement = settle(handle.db.execute(sql`select pg_sleep(0.3)`));
      await new Promise((resolve) => setTimeout(resolve, 20));
      const transaction = settle(handle.db.transaction(async (tx) => tx.execute(sql`select 1`)));
      expect(await transaction).toBeInstanceOf(DatabaseAcquireTimeoutError);
      expect(await statement).toBe('ok');
    } finally {
      await handle.close();
    }
  });

  it('statements in flight beside a transaction never run on its connection', async () => {
    const handle = createDb(url, { max: 2, acquireTimeoutMs: 5000 });
    try {
      const pidOf = async (query: PromiseLike<unknown>) => ((await query) as { pid: number }[])[0]!.pid;
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let transactionPid = 0;
      const transaction = handle.db.transaction(async (tx) => {
        transactionPid = await pidOf(tx.execute(sql`select pg_backend_pid() as pid, pg_sleep(0.05)`));
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const pids = await Promise.all(
        Array.from({ length: 6 }, () => pidOf(handle.db.execute(sql`select pg_backend_pid() as pid, pg_sleep(0.02)`))),
      );
      release();
      await transaction;
      expect(transactionPid).toBeGreaterThan(0);
      expect(pids).not.toContain(transactionPid);
    } finally {
      await handle.close();
    }
  });

  it('a statement over the statement timeout is cancelled by the server and counts as the database being unavailable', async () => {
    const handle = createDb(url, { max: 1, statementTimeoutMs: 100 });
    try {
      const error = await handle.db.execute(sql`select pg_sleep(2)`).then(
        () => null,
        (rejected: unknown) => rejected,
      );
      expect(error).toBeInstanceOf(DrizzleQueryError);
      expect((error as { cause?: { code?: string } }).cause?.code).toBe('57014');
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(await handle.db.execute(sql`show statement_timeout`)).toEqual([{ statement_timeout: '100ms' }]);
    } finally {
      await handle.close();
    }
  });

  it('fails at once, with a connection error, when nothing listens', async () => {
    const handle = createDb('postgres://postgres@127.0.0.1:1/nothing', {
      max: 1,
      connectTimeout: 1,
      acquireTimeoutMs: 500,
      reconnectBackoffMaxSeconds: 0.25,
    });
    try {
      for (let attempt = 0; attempt < 6; attempt++) {
        const began = performance.now();
        const error = await handle.db.execute(sql`select 1`).then(
          () => null,
          (rejected: unknown) => rejected,
        );
        expect(isDatabaseUnavailable(error), String(error)).toBe(true);
        // The driver's own backoff would reach seconds by the fifth attempt; capped, it stays short.
        expect(performance.now() - began).toBeLessThan(600);
      }
    } finally {
      await handle.close(0);
    }
  });
});

describe('the connection gate while the server is away', () => {
  it('callers waiting for a connection fail at once when an attempt to reach the server fails', async () => {
    const handle = createDb('postgres://postgres@127.0.0.1:1/nothing', {
      max: 1,
      connectTimeout: 1,
      acquireTimeoutMs: 5000,
      reconnectBackoffMaxSeconds: 0.25,
    });
    try {
      const began = performance.now();
      const errors = await Promise.all(
        Array.from({ length: 6 }, () =>
          handle.db.execute(sql`select 1`).then(
            () => null,
            (rejected: unknown) => rejected,
          ),
        ),
      );
      // Far below the 5 s acquire timeout: the first refusal releases every waiter.
      expect(performance.now() - began).toBeLessThan(1000);
      for (const error of errors) expect(isDatabaseUnavailable(error), String(error)).toBe(true);
      const causes = errors.map((error) => (error as { cause?: unknown }).cause);
      expect(causes.some((cause) => cause instanceof DatabaseUnreachableError)).toBe(true);
    } finally {
      await handle.close(0);
    }
  });

  it('a caller that finds a free connection still tries (and notices the server is back)', async () => {
    const handle = createDb(url, { max: 1, acquireTimeoutMs: 5000 });
    try {
      // A failure to reach the server, as the gate sees it, then the next statement goes through.
      await expect(
        handle.db.transaction(async () => {
          throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        }),
      ).rejects.toThrow('ECONNREFUSED');
      expect(await handle.db.execute(sql`select 1 as one`)).toEqual([{ one: 1 }]);
    } finally {
      await handle.close();
    }
  });
});

describe('isDatabaseUnavailable', () => {
  const wrapped = (cause: object) => new DrizzleQueryError('select 1', [], Object.assign(new Error('x'), cause));

  it('recognises connection failures, server shutdowns and timeouts, wrapped or not', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'CONNECTION_CLOSED',
      'CONNECT_TIMEOUT',
      'CONNECTION_ACQUIRE_TIMEOUT',
      '57P01',
      '57P03',
      '08006',
      '57014',
      // A failover (FO33): no listed host writable; a write refused by a server turned read-only.
      'CONNECTION_TARGET_SESSION_ATTRS',
      '25006',
    ]) {
      expect(isDatabaseUnavailable(wrapped({ code })), code).toBe(true);
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    const refusedTwice = new AggregateError([
      Object.assign(new Error('a'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('b'), { code: 'ECONNREFUSED' }),
    ]);
    expect(isDatabaseUnavailable(refusedTwice)).toBe(true);
  });

  it('leaves statement errors alone', () => {
    for (const code of ['23505', '22021', '42P01', '40001']) {
      expect(isDatabaseUnavailable(wrapped({ code })), code).toBe(false);
    }
    expect(isDatabaseUnavailable(new Error('plain'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });

  it('caps the reconnect backoff', () => {
    const backoff = cappedBackoff(0.25);
    for (const retries of [0, 3, 8, 30]) expect(backoff(retries)).toBeLessThanOrEqual(0.25);
  });
});
