import { inShape, lazyQuery, type PendingQuery } from './lazy-query';

/**
 * Telling "the database is away" apart from every other failure, and bounding how long a caller waits for
 * a connection. postgres.js has connect, idle and lifetime timeouts but no bound on the wait for a pooled
 * connection, and while PostgreSQL restarts its reconnect backoff grows to 10–20 s: requests queued behind
 * it waited that long, then failed as 500s.
 */

/** Thrown when no pooled connection became free within the acquire timeout. */
export class DatabaseAcquireTimeoutError extends Error {
  readonly code = 'CONNECTION_ACQUIRE_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`no database connection became free within ${timeoutMs} ms`);
    this.name = 'DatabaseAcquireTimeoutError';
  }
}

/**
 * Thrown at once, instead of waiting for a connection, while the last attempt to reach the server failed
 * and every connection is taken (the gate's own circuit; see `ConnectionGate`).
 */
export class DatabaseUnreachableError extends Error {
  readonly code = 'DATABASE_UNREACHABLE';
  constructor() {
    super('the database could not be reached just now; not waiting for a connection');
    this.name = 'DatabaseUnreachableError';
  }
}

/**
 * Codes meaning the server cannot be reached or is going away, not that the statement was wrong: socket
 * errors, postgres.js's own connection codes, SQLSTATE class 08 (connection exception), 57P01 admin
 * shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up or shutting down), 53300 too many
 * connections, and 57014 query canceled (the statement timeout: the database did not answer in time). And a
 * failover's (decision FO33): no listed host was writable (`CONNECTION_TARGET_SESSION_ATTRS`, from the driver's
 * patch), and 25006 read_only_sql_transaction, a write that reached a server turned read-only (a standby, a primary
 * being demoted); the driver replaces that connection.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'CONNECTION_TARGET_SESSION_ATTRS',
  'CONNECTION_ACQUIRE_TIMEOUT',
  'DATABASE_UNREACHABLE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
  '25006',
]);

/** True when `error` (or an error it wraps, as drizzle's "Failed query" wraps the driver's) says the database is away. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    const errors = (current as { errors?: unknown }).errors;
    // Node's AggregateError when every address of a host refused (IPv4 and IPv6 of localhost).
    if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The server was not reached at all (not a statement error, a statement timeout, a read-only server's refusal or our
 * own refusal).
 */
function isConnectionFailure(error: unknown): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  const codes: unknown[] = [];
  for (let current: unknown = error; current !== null && typeof current === 'object'; ) {
    codes.push((current as { code?: unknown }).code);
    current = (current as { cause?: unknown }).cause;
    if (codes.length > 5) break;
  }
  return !codes.some(
    (code) =>
      code === '57014' || code === '25006' || code === 'CONNECTION_ACQUIRE_TIMEOUT' || code === 'DATABASE_UNREACHABLE',
  );
}

export interface GateObserver {
  waited(seconds: number): void;
  held(seconds: number, outcome: 'ok' | 'error'): void;
}

interface Waiter {
  /** Units it asks for: 1 for a statement, a whole connection's for a transaction. */
  units: number;
  grant(): void;
  refuse(error: Error): void;
}

/**
 * Statements outside a transaction that may be in flight per connection: postgres.js pipelines a statement
 * onto a busy connection when none is idle, as the benchmark's baselines do, instead of waiting for one to
 * come free (decision FO32). A transaction holds a whole connection.
 */
export const STATEMENTS_PER_CONNECTION = 2;

/**
 * At most `connections` × `STATEMENTS_PER_CONNECTION` units are out at once: a statement outside a
 * transaction takes one unit, a transaction a whole connection's worth, so transactions never take every
 * connection while statements are in flight, and statements never wait in the driver for a connection its
 * transactions hold. The others wait in order, each at most `timeoutMs`, then fail with
 * `DatabaseAcquireTimeoutError`. A waiter that gave up never reaches the driver, so nothing it asked for
 * runs later.
 *
 * A circuit keeps callers from waiting on a server that is away: once an operation fails to reach it
 * (connection refused, reset, timed out), the waiting callers fail at once with `DatabaseUnreachableError`,
 * and so do new callers that find no room, until an operation reaches the server again. Callers that find
 * room still go ahead: they are the probes that notice the server is back.
 */
export class ConnectionGate {
  private unitsTaken = 0;
  private statements = 0;
  private transactions = 0;
  private readonly waiting: Waiter[] = [];
  private unreachable = false;
  private readonly capacity: number;
  /** Metrics: each operation's wait for a permit, and how long it held one (`outcome`: ok or error). */
  observer: GateObserver | undefined;

  constructor(
    private readonly connections: number,
    private readonly timeoutMs: number,
  ) {
    this.capacity = connections * STATEMENTS_PER_CONNECTION;
  }

  /**
   * Connections in use: postgres.js gives a statement an idle connection before it pipelines onto a busy
   * one, so each transaction and each statement up to the free connections holds one.
   */
  get inUse(): number {
    return Math.min(this.connections, this.transactions + this.statements);
  }
  get pending(): number {
    return this.waiting.length;
  }
  get size(): number {
    return this.connections;
  }

  /** A statement outside a transaction. */
  statement<T>(operation: () => PromiseLike<T>): Promise<T> {
    return this.run(operation, 'statement');
  }

  /** A transaction: it holds one connection from `begin` to its end. */
  transaction<T>(operation: () => PromiseLike<T>): Promise<T> {
    return this.run(operation, 'transaction');
  }

  private async run<T>(operation: () => PromiseLike<T>, kind: 'statement' | 'transaction'): Promise<T> {
    const units = kind === 'statement' ? 1 : STATEMENTS_PER_CONNECTION;
    const asked = performance.now();
    await this.acquire(units);
    const granted = performance.now();
    this.count(kind, 1);
    this.observer?.waited((granted - asked) / 1000);
    let outcome: 'ok' | 'error' = 'ok';
    try {
      const result = await operation();
      this.unreachable = false;
      return result;
    } catch (error) {
      outcome = 'error';
      this.observe(error);
      throw error;
    } finally {
      this.count(kind, -1);
      this.release(units);
      this.observer?.held((performance.now() - granted) / 1000, outcome);
    }
  }

  private count(kind: 'statement' | 'transaction', delta: number): void {
    if (kind === 'statement') this.statements += delta;
    else this.transactions += delta;
  }

  private observe(error: unknown): void {
    if (!isConnectionFailure(error)) {
      this.unreachable = false;
      return;
    }
    this.unreachable = true;
    for (const waiter of this.waiting.splice(0)) waiter.refuse(new DatabaseUnreachableError());
  }

  private acquire(units: number): Promise<void> {
    if (this.waiting.length === 0 && this.fits(units)) {
      this.unitsTaken += units;
      return Promise.resolve();
    }
    if (this.unreachable) return Promise.reject(new DatabaseUnreachableError());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        units,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
        refuse: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(new DatabaseAcquireTimeoutError(this.timeoutMs));
        // A transaction that gave up at the head may have held back statements that fit.
        this.grantWaiting();
      }, this.timeoutMs);
      this.waiting.push(waiter);
    });
  }

  private fits(units: number): boolean {
    return this.unitsTaken + units <= this.capacity;
  }

  /** Returns the units, then lets waiters in, in order, while the first one fits. */
  private release(units: number): void {
    this.unitsTaken -= units;
    this.grantWaiting();
  }

  private grantWaiting(): void {
    for (let next = this.waiting[0]; next && this.fits(next.units); next = this.waiting[0]) {
      this.waiting.shift();
      this.unitsTaken += next.units;
      next.grant();
    }
  }
}

/**
 * The driver's reconnect backoff (0.5–1 × 3^retries / 100 s) capped at `maxSeconds` instead of 20 s, so a
 * query arriving after PostgreSQL is back waits at most that long before the driver tries to connect again.
 */
export function cappedBackoff(maxSeconds: number): (retries: number) => number {
  return (retries) => (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, maxSeconds);
}

/** A statement that asks the driver for its query only once it holds a permit (awaited once, as drizzle does). */
function gatedQuery(gate: ConnectionGate, create: () => PendingQuery) {
  return lazyQuery((shape) => gate.statement(() => inShape(create(), shape)));
}

/**
 * The root client drizzle is given, with each statement outside a transaction (`unsafe`) and each
 * transaction (`begin`) first taking its room at `gate`. Statements inside a transaction run on its
 * connection and take none.
 */
export function gatedClient<T extends object>(client: T, gate: ConnectionGate): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'unsafe') {
        return (...args: unknown[]) => gatedQuery(gate, () => value.apply(target, args) as PendingQuery);
      }
      if (property === 'begin') return (...args: unknown[]) => gate.transaction(() => value.apply(target, args));
      return value.bind(target);
    },
  });
}

/**
 * `max_lifetime` as a function, as the driver's own default is: postgres.js draws it anew for each
 * connection, here between `seconds` and twice that, so connections opened together (after an outage)
 * are not all replaced together. (Its types say number only.)
 */
export function lifetimeBetween(seconds: number): number {
  return (() => seconds * (1 + Math.random())) as unknown as number;
}
