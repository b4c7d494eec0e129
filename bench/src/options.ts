import { parseArgs } from 'node:util';
import type { LoadSettings } from './load.js';

export type Mode = 'quick' | 'full';

/** The api's Redis: the one at `TEST_REDIS_URL`, or a local 3-primary cluster started for the run. */
export type RedisTopology = 'single' | 'cluster';

/** Between the api's pool and PostgreSQL: nothing, or a PgBouncer in transaction mode started for the run (DB18). */
export type Pooler = 'none' | 'pgbouncer';

export interface RunOptions {
  mode: Mode;
  load: LoadSettings;
  /** Row keys (or key prefixes) to run; null runs every row. */
  rowFilter: string[] | null;
  /** The api's LOG_LEVEL; `info` is its default in production. */
  logLevel: string;
  /** Where the child's stdout (the api's log) goes; null: nowhere. */
  apiLog: string | null;
  /** DATABASE_POOL_SIZE of the api, and the baseline's pool size. */
  poolSize: number;
  /** Where the markdown goes; null prints it only. */
  out: string | null;
  /** Tracing (10 % sampled, exported to a sink in the parent) and /metrics scraped from the parent. */
  telemetry: boolean;
  /** Measure telemetry's cost in pairs (off and on side by side) instead of writing the table. */
  telemetryCost: boolean;
  /** Profile this row's api and baseline instead of writing the table. */
  profile: string | null;
  databaseUrl: string;
  redisUrl: string;
  redis: RedisTopology;
  pooler: Pooler;
}

export const DEFAULT_REPORT = new URL('../../docs/performance.md', import.meta.url).pathname;

const PRESETS: Record<Mode, LoadSettings> = {
  quick: { connections: 16, warmupSeconds: 1, seconds: 4 },
  full: { connections: 16, warmupSeconds: 3, seconds: 10 },
};

export const USAGE = `pnpm bench [--quick] [--rows key,prefix] [--connections 16] [--duration s] [--warmup s]
           [--log-level info] [--api-log file] [--pool 10] [--out file] [--profile row-key]
           [--redis single|cluster] [--pooler none|pgbouncer]
           [--telemetry] [--telemetry-cost]`;

export function parseRunOptions(argv: string[]): RunOptions {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--'),
    options: {
      quick: { type: 'boolean', default: false },
      rows: { type: 'string' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      'api-log': { type: 'string' },
      pool: { type: 'string', default: '10' },
      out: { type: 'string' },
      profile: { type: 'string' },
      redis: { type: 'string', default: 'single' },
      pooler: { type: 'string', default: 'none' },
      telemetry: { type: 'boolean', default: false },
      'telemetry-cost': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.redis !== 'single' && values.redis !== 'cluster')
    throw new Error(`--redis is single or cluster, not ${values.redis}`);
  if (values.pooler !== 'none' && values.pooler !== 'pgbouncer')
    throw new Error(`--pooler is none or pgbouncer, not ${values.pooler}`);
  const mode: Mode = values.quick ? 'quick' : 'full';
  const preset = PRESETS[mode];
  const rowFilter = values.rows ? values.rows.split(',').map((key) => key.trim()) : null;
  // A partial run, or one with settings other than production's defaults, must not overwrite the full table.
  const partial =
    rowFilter !== null ||
    values.profile !== undefined ||
    values.redis === 'cluster' ||
    values.pooler === 'pgbouncer' ||
    values.telemetry ||
    values['telemetry-cost'];
  return {
    mode,
    load: {
      connections: Number(values.connections ?? preset.connections),
      warmupSeconds: Number(values.warmup ?? preset.warmupSeconds),
      seconds: Number(values.duration ?? preset.seconds),
    },
    rowFilter,
    logLevel: values['log-level'],
    apiLog: values['api-log'] ?? null,
    poolSize: Number(values.pool),
    // A partial run must not overwrite the full table.
    out: values.out ?? (partial ? null : DEFAULT_REPORT),
    profile: values.profile ?? null,
    telemetry: values.telemetry,
    telemetryCost: values['telemetry-cost'],
    databaseUrl: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    redis: values.redis,
    pooler: values.pooler,
  };
}
