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
  /** A binary body (an uploaded file), as base64 so it crosses the IPC channel; sent as its bytes. */
  bodyBase64?: string;
}

/** What the api answered a request a row sent it itself (outside any measurement). */
export interface InjectedAnswer {
  statusCode: number;
  body: string;
}

/** What a row gets, in the child process, to build its request once the api is up. */
export interface RowSetup {
  /** The dataset's size this run. */
  size: number;
  /** `Authorization` header of a session opened by logging in through the api the row targets. */
  bearer(email: string): Promise<Record<string, string>>;
  /** The seeded database, to find what a request names (a cursor position, a month with data). */
  sql: postgres.Sql;
  /** Sends a request to the api the row targets, in process (`inject`): set-up work that is not measured. */
  inject(request: HttpRequest): Promise<InjectedAnswer>;
}

/**
 * Work a row's requests are measured during (an import of 50,000 rows), one unit at a time: each measured slice
 * of the api side lasts one unit, start to end, and the baseline columns are the same requests to the same api
 * with none of it running, in slices as long (decision P33).
 */
export interface BackgroundWork {
  /** For the progress lines: `import of 50,000 rows`. */
  label: string;
  /** One unit, through the api the row targets; resolves when it has ended. */
  run(setup: RowSetup): Promise<{ seconds: number; detail: string }>;
  /** Puts back what a unit did (undoes the import), between slices, with no load on. */
  reset?(setup: RowSetup): Promise<void>;
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
  /** Most p50 of the api, in milliseconds (a request of seconds with a time to meet: an import's preview). */
  maxP50Ms?: number;
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
  /**
   * For a sequential row whose requests must each differ (a fresh preview to commit, uploads taken in turn by
   * members under a per-member rate limit): the next request, made before it is sent and not timed. Such a row's
   * statements are not counted (its set-up goes through the same api).
   */
  next?(setup: RowSetup): Promise<HttpRequest>;
  /** A sequential row sends at least this many requests in each measured run (a p50 of two is noise). */
  minRequests?: number;
  /**
   * A bare route doing the same SQL and Redis calls and answering the same JSON; null for a row measured
   * against itself (a time to meet, or `background`), whose baseline columns are then empty or the quiet side.
   */
  baseline: ((deps: BaselineDeps) => BaselineHandler) | null;
  /** Work the row is measured during; the baseline columns are then the same api with none of it running. */
  background?: BackgroundWork;
  /** Removes what legitimately differs between two correct answers (fresh tokens, times) before comparing. */
  comparable?(body: unknown): unknown;
  reference?: Reference;
}
