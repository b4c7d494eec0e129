import type { PrivatePgBouncer } from '@nestegg/testing';
import type { OwnRedisCluster } from '@nestegg/testing/redis-cluster';
import postgres from 'postgres';
import { BenchChild } from './child.js';
import type { Mode, RunOptions } from './options.js';
import { allRows } from './rows/index.js';
import type { BenchRow, Dataset } from './rows/types.js';
import type { ScratchDatabases } from './scratch.js';
import type { TelemetryConfig } from './telemetry.js';

export interface Step {
  dataset: Dataset;
  size: number;
  rows: BenchRow[];
}

export const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export function selectRows(filter: string[] | null): BenchRow[] {
  if (!filter) return allRows;
  const rows = allRows.filter((row) => filter.some((key) => row.key === key || row.key.startsWith(`${key}.`)));
  if (rows.length === 0) throw new Error(`no row matches ${filter.join(', ')}`);
  return rows;
}

/** Per dataset, its sizes from small to large (each grows the same database), with the rows run at each. */
export function planSteps(rows: BenchRow[], mode: Mode): Step[] {
  const steps: Step[] = [];
  for (const dataset of new Set(rows.map((row) => row.dataset))) {
    const ofDataset = rows.filter((row) => row.dataset === dataset);
    const sizes = [...new Set(ofDataset.flatMap((row) => row.sizes[mode]))].sort((a, b) => a - b);
    for (const size of sizes) {
      steps.push({ dataset, size, rows: ofDataset.filter((row) => row.sizes[mode].includes(size)) });
    }
  }
  return steps;
}

export async function seedStep(databaseUrl: string, step: Step): Promise<void> {
  const started = performance.now();
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await step.dataset.seed(sql, step.size);
    // Seeding a million rows leaves PostgreSQL flushing dirty buffers and checkpointing for minutes after;
    // measured then, every row at the largest size ran beside that I/O (api and baseline alike, 1.4-1.8x
    // over the smallest). A checkpoint now measures the queries, not the seed's write-back.
    await sql`checkpoint`;
  } finally {
    await sql.end();
  }
  progress(
    `seeded ${step.size.toLocaleString('en-US')} ${step.dataset.unit} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

export interface RunContext {
  options: RunOptions;
  scratch: ScratchDatabases;
  redisKeyPrefix: string;
  /** The run's own cluster with `--redis cluster`; null on the single Redis. */
  redisCluster: OwnRedisCluster | null;
  /** The run's PgBouncer with `--pooler pgbouncer`; null without. */
  pooler: PrivatePgBouncer | null;
}

/** Starts a child for one step's rows on the dataset's database. */
export function startChild(
  context: RunContext,
  databaseUrl: string,
  step: Step,
  telemetry: TelemetryConfig | null = null,
  /** Under the run's prefix, for a second child on other data whose keys must not meet the first's. */
  redisSubPrefix = '',
): Promise<BenchChild> {
  const { options } = context;
  return BenchChild.start(
    {
      databaseUrl,
      redisUrl: options.redisUrl,
      redisClusterNodes: context.redisCluster?.nodes ?? null,
      redisKeyPrefix: `${context.redisKeyPrefix}${redisSubPrefix}`,
      pooledDatabaseUrl: context.pooler?.urlFor(databaseUrl) ?? null,
      rowKeys: step.rows.map((row) => row.key),
      size: step.size,
      logLevel: options.logLevel,
      poolSize: options.poolSize,
      telemetry,
    },
    options.apiLog,
  );
}
