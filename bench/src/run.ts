/**
 * `pnpm bench`: the api against bare raw-SQL baselines, over loopback, on scratch data of stated sizes.
 * Writes the table to docs/performance.md, keeping its hand-written part and moving the report it replaces to
 * docs/performance-history.md (see `--help`, the file's own "Running it" and report-file.ts).
 */

import { startPgBouncer } from '@nestegg/testing';
import { startRedisCluster } from '@nestegg/testing/redis-cluster';
import type { BenchChild } from './child.js';
import {
  combine,
  httpSide,
  type LoadSettings,
  measureInterleaved,
  rateSide,
  runLoadFor,
  runLoadUntil,
  type Side,
  type SliceResult,
  sequentialSide,
} from './load.js';
import { describeMachine } from './machine.js';
import { parseRunOptions, type RunOptions } from './options.js';
import { runProfile } from './profile.js';
import { type PairedGrowth, type RowResult, renderReport } from './report.js';
import { writeReportFile } from './report-file.js';
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

/**
 * The api, its baseline and, when the row has one, its reference, measured in interleaved slices. A row without
 * a baseline has the api side alone; a row whose requests each differ asks the child for each (`next`).
 */
function sidesOf(child: BenchChild, row: BenchRow, connections: number): Record<string, Side> {
  const target = child.target(row.key);
  const source = row.next ? () => child.call({ type: 'next', key: row.key }) : target.request;
  const side = (url: string) =>
    row.sequential ? sequentialSide(url, source, row.minRequests) : httpSide(url, target.request, connections);
  const sides: Record<string, Side> = { api: side(target.apiUrl) };
  if (target.baselineUrl) sides.baseline = side(target.baselineUrl);
  if (row.reference) {
    sides.reference = rateSide((seconds) =>
      child.call({ type: 'reference', key: row.key, seconds, concurrency: connections }),
    );
  }
  return sides;
}

/** A copy of a dataset's smallest size, with a child on it, for the growth rows measured at its largest. */
interface SmallestCopy {
  size: number;
  child: BenchChild;
}

async function measureRow(
  child: BenchChild,
  row: BenchRow,
  size: number,
  options: RunOptions,
  smallest: SmallestCopy | null,
): Promise<RowResult> {
  progress(`${row.name} at ${size.toLocaleString('en-US')} ${row.dataset.unit}`);
  const load = { ...options.load, connections: row.connections ?? options.load.connections };
  if (row.background) return measureDuringBackground(child, row, size, load);
  const sides = sidesOf(child, row, load.connections);
  // The growth row's largest size: the smallest size's api and baseline are measured again in the same
  // alternating slices, so the machine's drift since that size ran does not count as growth.
  const paired = smallest ? prefixed('smallest.', sidesOf(smallest.child, row, load.connections)) : {};
  const measured = await measureInterleaved({ ...sides, ...paired }, load);
  const api = measured.api!;
  const baseline = measured.baseline ?? null;
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
  const smallestApi = measured['smallest.api'];
  const smallestBaseline = measured['smallest.baseline'];
  if (smallest && smallestApi && smallestBaseline && baseline) {
    result.growth = {
      smallestSize: smallest.size,
      api: { smallest: smallestApi.p50Ms, largest: api.p50Ms },
      baseline: { smallest: smallestBaseline.p50Ms, largest: baseline.p50Ms },
    };
  }
  if (result.growth && smallest && overGrowthTarget(row, result.growth)) {
    result.growth.plans = {
      smallest: await smallest.child.call({ type: 'plans', key: row.key }),
      largest: await child.call({ type: 'plans', key: row.key }),
    };
  }
  progress(
    `  api ${api.requestsPerSecond.toFixed(baseline ? 0 : 2)} req/s p50 ${api.p50Ms.toFixed(2)} ms (${api.ok} answers)` +
      (baseline
        ? ` · baseline ${baseline.requestsPerSecond.toFixed(0)} req/s p50 ${baseline.p50Ms.toFixed(2)} ms · ${(api.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}×`
        : ' · no baseline') +
      (result.growth
        ? ` · p50 at ${result.growth.smallestSize.toLocaleString('en-US')} alongside: api ${result.growth.api.smallest.toFixed(2)} ms, baseline ${result.growth.baseline.smallest.toFixed(2)} ms`
        : ''),
  );
  return result;
}

/**
 * A row measured during background work (decision P33): each api slice lasts one unit of the work, start to end
 * (after one unit under load as the warm-up), and alternates with slices as long of the same requests to the
 * same api with none of it running (api, quiet, quiet, api, …); between units the work is put back, unloaded.
 * The quiet side fills the baseline columns, so api ÷ baseline is the rate during the work over the quiet rate.
 */
async function measureDuringBackground(
  child: BenchChild,
  row: BenchRow,
  size: number,
  load: LoadSettings,
): Promise<RowResult> {
  const work = row.background!;
  const target = child.target(row.key);
  const duringUnit = async (): Promise<SliceResult & { unitSeconds: number }> => {
    const unit = child.call({ type: 'background', key: row.key });
    const slice = await runLoadUntil(target.apiUrl, target.request, load.connections, unit);
    const { seconds, detail } = await unit;
    await child.call({ type: 'background', key: row.key, reset: true });
    progress(`  ${work.label}: ${seconds.toFixed(1)} s (${detail}); ${slice.ok} answers meanwhile`);
    return { ...slice, unitSeconds: slice.elapsedSeconds };
  };
  const quietSlice = async (seconds: number) => {
    const slice = await runLoadFor(target.apiUrl, target.request, load.connections, seconds);
    progress(`  quiet for ${seconds.toFixed(1)} s; ${slice.ok} answers`);
    return slice;
  };
  const units = Math.max(2, Math.ceil(load.seconds / 4));
  let lastUnit = (await duringUnit()).unitSeconds;
  const during: SliceResult[] = [];
  const quiet: SliceResult[] = [];
  for (let pair = 0; pair < units; pair += 1) {
    if (pair % 2 === 0) {
      const unit = await duringUnit();
      lastUnit = unit.unitSeconds;
      during.push(unit);
      quiet.push(await quietSlice(lastUnit));
    } else {
      quiet.push(await quietSlice(lastUnit));
      const unit = await duringUnit();
      lastUnit = unit.unitSeconds;
      during.push(unit);
    }
  }
  const api = combine(during);
  const baseline = combine(quiet);
  const counts = await child.call({ type: 'count', key: row.key });
  progress(
    `  during: ${api.requestsPerSecond.toFixed(0)} req/s p50 ${api.p50Ms.toFixed(2)} p99 ${api.p99Ms.toFixed(1)} ms · quiet: ${baseline.requestsPerSecond.toFixed(0)} req/s p50 ${baseline.p50Ms.toFixed(2)} p99 ${baseline.p99Ms.toFixed(1)} ms · ${(api.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}×`,
  );
  return { row, size, connections: load.connections, api, baseline, counts, json: target.json };
}

const overGrowthTarget = (row: BenchRow, growth: PairedGrowth) =>
  growth.api.largest / growth.api.smallest > (row.targets.maxP50Growth ?? Number.POSITIVE_INFINITY);

function prefixed(prefix: string, sides: Record<string, Side>): Record<string, Side> {
  return Object.fromEntries(
    Object.entries(sides)
      .filter(([name]) => name !== 'reference')
      .map(([name, side]) => [`${prefix}${name}`, side]),
  );
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

/**
 * Every row of a child, api and baseline (and the smallest copy's), loaded for the warm-up before any row is
 * measured: they share their libraries and V8's optimisation of them, so a row measured right after a child
 * starts, or after rows that warmed other code, came out 0.1-0.2x apart (docs/performance.md after the run of
 * 2026-11-27 20:28, kept in git: docs/performance-history.md#earlier-runs-kept-in-git). Each row still warms up
 * again just before its own measurement.
 */
async function warmUpStep(
  child: BenchChild,
  rows: BenchRow[],
  options: RunOptions,
  smallestChild: BenchChild | null,
  paired: BenchRow[],
): Promise<void> {
  const seconds = options.load.warmupSeconds;
  if (seconds <= 0) return;
  progress(`warming up ${rows.length} row(s) for ${seconds} s each side`);
  for (const row of rows) {
    const connections = row.connections ?? options.load.connections;
    const sides = Object.values(sidesOf(child, row, connections));
    if (smallestChild && paired.includes(row)) sides.push(...Object.values(sidesOf(smallestChild, row, connections)));
    for (const side of sides) if (side.warmsUp) await side.run(seconds);
  }
}

/** The rows of a step that have a growth target and also ran at `size`. */
const growthRows = (step: Step, size: number, mode: RunOptions['mode']) =>
  step.rows.filter((row) => row.targets.maxP50Growth !== undefined && row.sizes[mode].includes(size));

async function measureAll(context: RunContext, steps: Step[], sink: OtlpSink | null) {
  const results: RowResult[] = [];
  const tally = telemetryTally(sink);
  const telemetry = sink ? { otlpEndpoint: sink.url, sampleRatio: TELEMETRY_SAMPLE_RATIO } : null;
  const { mode } = context.options;
  const databases = new Map<Dataset, string>();
  /** Per dataset, a copy of its database at its smallest size (when it runs at more than one). */
  const smallestCopies = new Map<Dataset, { size: number; url: string }>();
  for (const step of steps) {
    if (!databases.has(step.dataset)) databases.set(step.dataset, await context.scratch.forDataset(step.dataset.name));
    const databaseUrl = databases.get(step.dataset)!;
    await seedStep(databaseUrl, step);
    const sizes = steps.filter((other) => other.dataset === step.dataset).map((other) => other.size);
    if (sizes.length > 1 && step.size === sizes[0])
      smallestCopies.set(step.dataset, {
        size: step.size,
        url: await context.scratch.snapshot(step.dataset.name, step.size),
      });
    const copy = step.size === sizes.at(-1) ? smallestCopies.get(step.dataset) : undefined;
    const paired = copy ? growthRows(step, copy.size, mode) : [];
    const child = await startChild(context, databaseUrl, step, telemetry);
    const stopWatching = tally.watch(child);
    const smallestChild =
      copy && paired.length > 0
        ? await startChild(context, copy.url, { ...step, size: copy.size, rows: paired }, telemetry, 'smallest:')
        : null;
    try {
      await warmUpStep(child, step.rows, context.options, smallestChild, paired);
      for (const row of step.rows) {
        const smallest = smallestChild && paired.includes(row) ? { size: copy!.size, child: smallestChild } : null;
        results.push(await measureRow(child, row, step.size, context.options, smallest));
      }
    } finally {
      await Promise.all([child.stop(), smallestChild?.stop()]);
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
    const history = await writeReportFile(options.out, markdown, startedAt);
    progress(`wrote ${options.out}${history ? `; the report it replaced is now in ${history}` : ''}`);
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
      await context.pooler?.stop();
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
    pooler: null,
  };
  const cleanup = cleanupOnce(context);
  process.once('SIGINT', () => {
    progress('interrupted; cleaning up');
    void cleanup().finally(() => process.exit(130));
  });
  try {
    if (options.pooler === 'pgbouncer') {
      // As many server connections per database as the api's pool: the pooler adds a hop, not a limit (DB18).
      context.pooler = await startPgBouncer({ serverUrl: options.databaseUrl, poolSize: options.poolSize });
      progress(`PgBouncer (transaction mode) on port ${context.pooler.port} in front of the api's database`);
    }
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
