/**
 * `pnpm bench`: the api against bare raw-SQL baselines, over loopback, on scratch data of stated sizes.
 * Writes the table to docs/performance.md (see `--help` and the file's own "Running it").
 */

import { writeFile } from 'node:fs/promises';
import { startRedisCluster } from '@nestegg/testing/redis-cluster';
import type { BenchChild } from './child.js';
import { httpSide, type LoadResult, measureInterleaved, rateSide, type Side, sequentialSide } from './load.js';
import { describeMachine } from './machine.js';
import { parseRunOptions, type RunOptions } from './options.js';
import { runProfile } from './profile.js';
import { type RowResult, renderReport } from './report.js';
import { allRows } from './rows/index.js';
import type { BenchRow, Dataset } from './rows/types.js';
import { deleteRedisKeys, ScratchDatabases, scratchRedisPrefix } from './scratch.js';
import { planSteps, progress, type RunContext, type Step, seedStep, selectRows, startChild } from './steps.js';
import {
  type OtlpSink,
  startOtlpSink,
  startScraper,
  TELEMETRY_SAMPLE_RATIO,
  type TelemetryCounts,
} from './telemetry.js';
import { runTelemetryCost } from './telemetry-cost.js';

/** The api, its baseline and, when the row has one, its reference, measured in interleaved slices. */
function sidesOf(child: BenchChild, row: BenchRow, connections: number): Record<string, Side> {
  const target = child.target(row.key);
  const side = (url: string) =>
    row.sequential ? sequentialSide(url, target.request) : httpSide(url, target.request, connections);
  const sides: Record<string, Side> = { api: side(target.apiUrl), baseline: side(target.baselineUrl) };
  if (row.reference) {
    sides.reference = rateSide((seconds) =>
      child.call({ type: 'reference', key: row.key, seconds, concurrency: connections }),
    );
  }
  return sides;
}

async function measureRow(child: BenchChild, row: BenchRow, size: number, options: RunOptions): Promise<RowResult> {
  progress(`${row.name} at ${size.toLocaleString('en-US')} ${row.dataset.unit}`);
  const load = { ...options.load, connections: row.connections ?? options.load.connections };
  const measured = await measureInterleaved(sidesOf(child, row, load.connections), load);
  const { api, baseline } = measured as Record<'api' | 'baseline', LoadResult>;
  const counts = await child.call({ type: 'count', key: row.key });
  const result: RowResult = {
    row,
    size,
    connections: load.connections,
    api,
    baseline,
    counts,
    json: child.target(row.key).json,
  };
  const reference = measured.reference;
  if (row.reference && reference)
    result.reference = { label: row.reference.label, perSecond: reference.requestsPerSecond };
  progress(
    `  api ${api.requestsPerSecond.toFixed(0)} req/s p50 ${api.p50Ms.toFixed(2)} ms · baseline ${baseline.requestsPerSecond.toFixed(0)} req/s p50 ${baseline.p50Ms.toFixed(2)} ms · ${(api.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}×`,
  );
  return result;
}

/** What `--telemetry` exported and scraped over the run, so the table shows the work was really done. */
function telemetryTally(sink: OtlpSink | null) {
  const counts: TelemetryCounts = { exports: 0, exportedBytes: 0, scrapes: 0, failedScrapes: 0 };
  return {
    counts,
    watch(child: BenchChild) {
      const scraper = child.metricsUrl ? startScraper(child.metricsUrl) : null;
      return () => {
        scraper?.stop();
        counts.scrapes += scraper?.counts().scrapes ?? 0;
        counts.failedScrapes += scraper?.counts().failedScrapes ?? 0;
        Object.assign(counts, sink?.counts());
      };
    },
  };
}

async function measureAll(context: RunContext, steps: Step[], sink: OtlpSink | null) {
  const results: RowResult[] = [];
  const tally = telemetryTally(sink);
  const telemetry = sink ? { otlpEndpoint: sink.url, sampleRatio: TELEMETRY_SAMPLE_RATIO } : null;
  const databases = new Map<Dataset, string>();
  for (const step of steps) {
    if (!databases.has(step.dataset)) databases.set(step.dataset, await context.scratch.forDataset(step.dataset.name));
    const databaseUrl = databases.get(step.dataset)!;
    await seedStep(databaseUrl, step);
    const child = await startChild(context, databaseUrl, step, telemetry);
    const stopWatching = tally.watch(child);
    try {
      for (const row of step.rows) results.push(await measureRow(child, row, step.size, context.options));
    } finally {
      await child.stop();
      stopWatching();
    }
  }
  // Report order: rows as declared, each from its smallest size up.
  const order = (result: RowResult) => allRows.indexOf(result.row);
  results.sort((a, b) => order(a) - order(b) || a.size - b.size);
  return { results, telemetry: sink ? tally.counts : null };
}

async function runTable(context: RunContext): Promise<void> {
  const { options } = context;
  const startedAt = new Date();
  const machine = await describeMachine(options.databaseUrl, options.redisUrl);
  const steps = planSteps(selectRows(options.rowFilter), options.mode);
  const sink = options.telemetry ? await startOtlpSink() : null;
  const { results, telemetry } = await measureAll(context, steps, sink).finally(() => sink?.close());
  const datasets = [...new Set(steps.map((step) => step.dataset))].map((dataset) => ({
    unit: dataset.unit,
    sizes: steps.filter((step) => step.dataset === dataset).map((step) => step.size),
  }));
  const markdown = renderReport({
    machine,
    startedAt,
    elapsedSeconds: (Date.now() - startedAt.getTime()) / 1000,
    options,
    datasets,
    results,
    telemetry,
  });
  process.stdout.write(markdown);
  if (options.out) {
    await writeFile(options.out, markdown);
    progress(`wrote ${options.out}`);
  }
}

/** Cleans up once, whether the run ends, fails or is interrupted. */
function cleanupOnce(context: RunContext): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= (async () => {
      await context.scratch.dropAll().catch((error: unknown) => progress(`could not drop scratch databases: ${error}`));
      await deleteRedisKeys(context.options.redisUrl, context.redisKeyPrefix).catch((error: unknown) =>
        progress(`could not delete Redis keys ${context.redisKeyPrefix}*: ${error}`),
      );
      await context.redisCluster?.stop();
    })();
    return done;
  };
}

async function main(): Promise<void> {
  const options = parseRunOptions(process.argv.slice(2));
  const context: RunContext = {
    options,
    scratch: new ScratchDatabases(options.databaseUrl),
    redisKeyPrefix: scratchRedisPrefix(),
    redisCluster: null,
  };
  const cleanup = cleanupOnce(context);
  process.once('SIGINT', () => {
    progress('interrupted; cleaning up');
    void cleanup().finally(() => process.exit(130));
  });
  try {
    if (options.redis === 'cluster') {
      context.redisCluster = await startRedisCluster();
      progress(`Redis Cluster of 3 primaries at ${context.redisCluster.nodes}`);
    }
    if (options.profile) await runProfile(context, options.profile);
    else if (options.telemetryCost) await runTelemetryCost(context);
    else await runTable(context);
  } finally {
    await cleanup();
  }
}

await main();
