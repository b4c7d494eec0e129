import type { FastifyReply, FastifyRequest } from 'fastify';
import type postgres from 'postgres';
import type { BaselineRedis } from '../baseline/scripts.js';

/** A table (or group of tables) the rows read, grown to a stated size before they run. */
export interface Dataset {
  name: string;
  /** What one unit of `size` is, for the report: `members`, `entries`. */
  unit: string;
  /** Grows the scratch database to `size` units; called with increasing sizes on the same database. */
  seed(sql: postgres.Sql, size: number): Promise<void>;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path and query, the same for the api and the baseline. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What a row gets, in the child process, to build its request once the api is up. */
export interface RowSetup {
  /** The dataset's size this run. */
  size: number;
  /** `Authorization` header of a session opened by logging in through the api the row targets. */
  bearer(email: string): Promise<Record<string, string>>;
  /** The seeded database, to find what a request names (a cursor position, a month with data). */
  sql: postgres.Sql;
}

/** The baseline's own connections, configured like the api's. */
export interface BaselineDeps {
  sql: postgres.Sql;
  /** The Redis the row's api uses: the shared one, or the private one stopped for `redis: 'lost'` rows. */
  redis: BaselineRedis;
}

export type BaselineHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** A reference speed next to the row, e.g. raw `argon2.verify` calls per second for the login. */
export interface Reference {
  label: string;
  /** Operations per second with `concurrency` operations in flight for `seconds`. */
  measure(seconds: number, concurrency: number): Promise<number>;
}

/** The targets an area is held to; a row without one only reports. */
export interface RowTargets {
  /** Least api/baseline throughput ratio. */
  minThroughputRatio?: number;
  /** Most SQL statements per request. */
  maxStatements?: number;
  /** Most p50 at the largest size over p50 at the smallest size the row runs at. */
  maxP50Growth?: number;
  /** Most p50 over another row's p50 at the same data size (the delta feed against a cursor page). */
  maxP50Over?: { row: string; ratio: number };
}

export interface BenchRow {
  /** Stable id, for `--rows` and the profile. */
  key: string;
  /** Shown in the table. */
  name: string;
  dataset: Dataset;
  /** Dataset sizes the row runs at in each mode. */
  sizes: { quick: number[]; full: number[] };
  /** `lost`: the api started with a Redis that was stopped before the load (the session backup path). */
  redis: 'up' | 'lost';
  targets: RowTargets;
  /** Connections for this row when the run's number does not fit it (the login's attempt limit). */
  connections?: number;
  /** One request at a time, each awaited to its end (requests of seconds, e.g. a large restore). */
  sequential?: boolean;
  request(setup: RowSetup): Promise<HttpRequest>;
  /** A bare route doing the same SQL and Redis calls and answering the same JSON. */
  baseline(deps: BaselineDeps): BaselineHandler;
  /** Removes what legitimately differs between two correct answers (fresh tokens, times) before comparing. */
  comparable?(body: unknown): unknown;
  reference?: Reference;
}
