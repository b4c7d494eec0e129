/**
 * The defects of postgres.js 3.4.9 that patches/postgres@3.4.9.patch repairs
 * (docs/decisions/faults-and-bursts.md FD1), each driven to its state on purpose, not waited for:
 *
 * 1. A write on a connection whose socket is gone: `nextWrite` ran `socket.write` on `null` from a `setImmediate`
 *    callback, so the TypeError escaped every request as an uncaught exception (porsager/postgres #1154, #1208). It
 *    happens when a query runs on a connection after its close: a transaction's own ROLLBACK after its query failed
 *    with the connection, or a reserved connection.
 * 2. A connection torn down with a write still buffered: teardown cancelled the pending flush but left its handle set,
 *    and `write` only schedules a flush when the handle is empty, so the reconnected connection never sent its startup
 *    message again: each query on it waited for `connect_timeout`, forever.
 * 3. A query written between a socket error and its close stayed queued as sent (below).
 * 4. The array-type fetch of a new connection: its failure was unhandled, and replayed after a reconnect (below).
 *
 * Both builds the apps can load are checked: `import` resolves to `src/` and `require` to `cjs/src/`.
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';
import postgresEsm from 'postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

type Sql = ReturnType<typeof postgresEsm>;
const postgresCjs = createRequire(import.meta.url)('postgres') as typeof postgresEsm;
const adminUrl = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');

/** A pool whose sockets the test can reach (postgres.js's `socket` option), to close one at a chosen moment. */
function pool(driver: typeof postgresEsm, options: { connectTimeout?: number; debug?: () => void } = {}) {
  const sockets: Socket[] = [];
  // `socket` is a documented option that the type definitions leave out (hence no object literal in the call).
  const settings = {
    max: 1,
    connect_timeout: options.connectTimeout ?? 10,
    onnotice: () => {},
    ...(options.debug ? { debug: options.debug } : {}),
    socket: () => {
      const socket = connect(Number(adminUrl.port || 5432), adminUrl.hostname);
      sockets.push(socket);
      return socket;
    },
  };
  const sql = driver(adminUrl.toString(), settings);
  return { sql, socket: () => sockets.at(-1)! };
}

/** Whether `promise` settled within `ms`: its value, its error, or `'pending'` (a hang). */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets every immediate queued so far run (the driver flushes small writes from one). */
const turns = async (count = 3) => {
  for (let i = 0; i < count; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

let uncaught: unknown[] = [];
let unhandled: unknown[] = [];
const record = (error: unknown) => uncaught.push(error);
const recordRejection = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  uncaught = [];
  unhandled = [];
  process.on('uncaughtException', record);
  process.on('unhandledRejection', recordRejection);
});
afterEach(() => {
  process.off('uncaughtException', record);
  process.off('unhandledRejection', recordRejection);
});

describe.each([
  ['import (src/)', postgresEsm],
  ['require (cjs/src/)', postgresCjs],
])('postgres.js write scheduler, %s', (_build, driver) => {
  it('defect 1: a query on a reserved connection whose socket closed rejects CONNECTION_CLOSED, nothing is thrown', async () => {
    const { sql, socket } = pool(driver);
    try {
      const reserved = await sql.reserve();
      await reserved`select 1`;
      const dead = socket();
      dead.destroy();
      await once(dead, 'close'); // the driver's own 'close' listener has run: its socket is null now

      const outcome = await within(reserved`select 2`, 2000);
      await turns();

      expect(uncaught).toEqual([]); // unpatched: TypeError: Cannot read properties of null (reading 'write')
      expect(outcome).not.toBe('pending'); // unpatched: the query is never settled
      expect(outcome).toMatchObject({ error: { code: 'CONNECTION_CLOSED' } });
      reserved.release();
      expect(await within(sql`select 3 as x`, 5000)).toEqual({ value: [{ x: 3 }] });
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("defect 1: a transaction whose connection dies mid-query rejects, and the driver's own ROLLBACK throws nothing", async () => {
    const { sql, socket } = pool(driver);
    try {
      const transaction = sql.begin(async (tx) => {
        await tx`select 1`;
        const sleeping = tx`select pg_sleep(2)`.execute(); // postgres.js queries are lazy: send it now
        await turns(); // the query is on the wire
        socket().destroy(); // as a server going away would: the in-flight query fails, then begin() sends ROLLBACK
        await sleeping;
      });

      const outcome = await within(transaction, 2000);
      await turns();

      expect(uncaught).toEqual([]); // unpatched: the ROLLBACK's write hits the null socket from setImmediate
      expect(outcome).toMatchObject({ error: { code: 'CONNECTION_CLOSED' } });
      expect(await within(sql`select 4 as x`, 5000)).toEqual({ value: [{ x: 4 }] });
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('defect 3: a query written between a socket error and its close is settled, the reconnected connection serves', async () => {
    const { sql, socket } = pool(driver);
    try {
      const transaction = sql.begin(async (tx) => {
        await tx`select 1`;
        const sleeping = tx`select pg_sleep(2)`.execute();
        await turns();
        // A reset: 'error' is emitted on the next tick, 'close' only at the end of this turn of the event loop. In
        // between, the failed query's transaction sends its ROLLBACK on the still open socket.
        socket().destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
        await sleeping;
      });
      // the pool's close rejects begin() before its ROLLBACK settles
      expect(await within(transaction, 2000)).toMatchObject({ error: { code: 'CONNECTION_CLOSED' } });

      // unpatched: close(hadError) left that ROLLBACK queued as sent; after the reconnect's first query the connection
      // waits for its answer forever, so the next query (max: 1) never gets a connection
      expect(await within(sql`select 7 as x`, 3000)).toEqual({ value: [{ x: 7 }] });
      expect(await within(sql`select 8 as x`, 3000)).toEqual({ value: [{ x: 8 }] });
      expect(uncaught).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('defect 2: a connection torn down with a write buffered flushes again once reconnected', async () => {
    // connect_timeout far above the bound: unpatched, the query below waits for it instead of failing fast
    let closeBeforeFlush: Socket | null = null;
    const { sql, socket } = pool(driver, {
      connectTimeout: 30,
      // Runs inside the driver's execute(), just before it buffers the query and schedules the flush.
      debug: () => {
        closeBeforeFlush?.destroy();
        closeBeforeFlush = null;
      },
    });
    try {
      await sql`select 1`;
      const dead = socket();
      const { lost } = await new Promise<{ lost: Promise<unknown> }>((resolve) =>
        // From the check phase the flush scheduled with setImmediate runs on the next turn of the event loop, while
        // the close callback of a socket destroyed now runs at the end of this one: teardown with the write buffered.
        setImmediate(() => {
          closeBeforeFlush = dead;
          resolve({ lost: sql`select 2`.execute() });
        }),
      );
      await once(dead, 'close');
      expect(closeBeforeFlush).toBeNull();
      expect(await within(lost, 2000)).toMatchObject({ error: { code: 'CONNECTION_CLOSED' } });

      // unpatched: the reconnected connection never flushes its startup message, so this waits for connect_timeout
      expect(await within(sql`select 5 as x`, 3000)).toEqual({ value: [{ x: 5 }] });
      expect(await within(sql`select 6 as x`, 3000)).toEqual({ value: [{ x: 6 }] });
      expect(uncaught).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});

/**
 * Defect 4: every new connection first fetches the server's array types, and that query's promise had no handler. A
 * backend terminated during it (57P01, as a restart or `pg_terminate_backend` does) raised an unhandledRejection, and
 * the reconnected connection's first ReadyForQuery replayed the old error onto the query that opened it
 * (porsager/postgres #1192, #1223). A lock on `pg_type` in a scratch database holds the fetch still, so the
 * termination lands inside it every time.
 */
describe.each([
  ['import (src/)', postgresEsm],
  ['require (cjs/src/)', postgresCjs],
])('postgres.js array-type fetch, %s', (_build, driver) => {
  /**
   * Opens a connection whose array-type fetch waits on a lock held on `pg_type`, runs `whileHeld`, releases the lock,
   * and answers how the query that opened the connection settled, and the next query.
   */
  async function openWithFetchHeld(
    connection: Record<string, string | number>,
    whileHeld: (admin: Sql, victim: string) => Promise<unknown>,
  ) {
    const admin = driver(adminUrl.toString(), { max: 1, onnotice: () => {} });
    const database = `driver_patch_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    await admin.unsafe(`create database ${database}`);
    const scratch = new URL(adminUrl);
    scratch.pathname = `/${database}`;
    const victim = `fetch-types-${database}`;
    const locker = driver(scratch.toString(), { max: 1, onnotice: () => {} });
    const sql = driver(scratch.toString(), {
      max: 1,
      onnotice: () => {},
      connection: { application_name: victim, ...connection },
    });
    try {
      await locker`select 1`; // its own connection and catalog caches are up before the lock
      let opened: ReturnType<typeof within> | undefined;
      await locker.begin(async (tx) => {
        await tx`lock table pg_catalog.pg_type in access exclusive mode`;
        opened = within(sql`select 1 as x`.execute(), 10_000); // handled from the start: only the driver's own may leak
        await until(async () => (await waitingOnLock(admin, victim)) === 1);
        await whileHeld(admin, victim);
      });
      const outcome = await opened;
      await turns();
      return { outcome, next: await within(sql`select 2 as x`, 5000) };
    } finally {
      await sql.end({ timeout: 1 });
      await locker.end({ timeout: 1 });
      await admin.unsafe(`drop database if exists ${database} with (force)`);
      await admin.end({ timeout: 1 });
    }
  }

  it('defect 4: a backend terminated in the fetch: the query that opened the connection is answered, nothing is unhandled', async () => {
    const { outcome, next } = await openWithFetchHeld(
      {},
      (admin, victim) =>
        // waits (up to 5 s) until the backend has gone, so the lock is released only after the termination
        admin`select pg_terminate_backend(pid, 5000) from pg_stat_activity where application_name = ${victim}`,
    );
    expect(unhandled).toEqual([]); // unpatched: the fetch's 57P01
    expect(outcome).toEqual({ value: [{ x: 1 }] }); // unpatched: 57P01 replayed from the terminated backend
    expect(next).toEqual({ value: [{ x: 2 }] });
  });

  it('defect 4: the fetch cancelled by statement_timeout fails the query that opened the connection, nothing is unhandled', async () => {
    const { outcome, next } = await openWithFetchHeld(
      { statement_timeout: 200 },
      () => new Promise((resolve) => setTimeout(resolve, 400)),
    );
    expect(unhandled).toEqual([]); // unpatched: the fetch's 57014
    expect(outcome).toMatchObject({ error: { code: '57014' } });
    expect(next).toEqual({ value: [{ x: 2 }] });
  });
});

async function waitingOnLock(admin: Sql, applicationName: string) {
  const rows = await admin`
    select count(*)::int as n from pg_stat_activity
    where application_name = ${applicationName} and wait_event_type = 'Lock'`;
  return rows[0]!.n as number;
}

async function until(check: () => Promise<boolean>, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
