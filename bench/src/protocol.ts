import type { HttpRequest } from './rows/types.js';
import type { TelemetryConfig } from './telemetry.js';

/** What the parent tells the child it forks (through `NESTEGG_BENCH_CHILD`, as JSON). */
export interface ChildConfig {
  databaseUrl: string;
  redisUrl: string;
  /** `host:port,…` of the cluster the api and the baselines use instead of `redisUrl` (`--redis cluster`). */
  redisClusterNodes: string | null;
  redisKeyPrefix: string;
  /**
   * With `--pooler pgbouncer`: the api's `DATABASE_URL` through the run's PgBouncer (transaction mode), `databaseUrl`
   * then being its `DATABASE_DIRECT_URL` (the baselines stay on `databaseUrl`); null: the api on `databaseUrl`.
   */
  pooledDatabaseUrl: string | null;
  rowKeys: string[];
  size: number;
  logLevel: string;
  poolSize: number;
  /** Tracing and a metrics listener, as `--telemetry` asks; null: neither (metrics are still recorded). */
  telemetry: TelemetryConfig | null;
}

export interface JsonCheck {
  same: boolean;
  /** Both answers, shortened, when they differ. */
  detail?: string;
}

/** One row, ready to load: where the api and its baseline listen and what to send to both. */
export interface RowTarget {
  key: string;
  apiUrl: string;
  /** Null for a row without a bare route (measured against a time, or against itself when quiet). */
  baselineUrl: string | null;
  request: HttpRequest;
  /** Null when there is no bare route to compare with. */
  json: JsonCheck | null;
}

export interface RequestCounts {
  statementsPerRequest: number;
  redisCommandsPerRequest: number;
  /** Each distinct statement, prefixed with how often one request ran it. */
  statements: string[];
  redisCommands: string[];
}

export interface CountResult {
  api: RequestCounts;
  /** Null for a row without a bare route. */
  baseline: RequestCounts | null;
}

export type ChildCommand =
  | { type: 'count'; key: string }
  | { type: 'next'; key: string }
  | { type: 'background'; key: string; reset?: boolean }
  | { type: 'reference'; key: string; seconds: number; concurrency: number }
  | { type: 'plans'; key: string }
  | { type: 'profile-start' }
  | { type: 'profile-stop'; file: string }
  | { type: 'cpu-usage' }
  | { type: 'stop' };

export interface ChildReplies {
  /** Null for a row whose requests are made by `next` (their set-up goes through the counted api). */
  count: CountResult | null;
  /** The request a `next` row sends now. */
  next: HttpRequest;
  /** One unit of a row's background work, ended: how long it took and what it did. */
  background: { seconds: number; detail: string };
  reference: number;
  /** Each read statement of one baseline request with its `EXPLAIN (ANALYZE, BUFFERS)`. */
  plans: string[];
  'profile-start': null;
  'profile-stop': null;
  /** The child's CPU time so far (user + system, every thread), in microseconds. */
  'cpu-usage': number;
  stop: null;
}

export interface ParentMessage {
  id: number;
  command: ChildCommand;
}

export type ChildMessage =
  | { type: 'ready'; targets: RowTarget[]; metricsUrl: string | null }
  | { type: 'reply'; id: number; result?: unknown; error?: string };

export const CHILD_CONFIG_VARIABLE = 'NESTEGG_BENCH_CHILD';
