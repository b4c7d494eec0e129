/**
 * `pnpm bench --telemetry-cost`: what tracing and scraping cost the api (issue 18, item 10), measured as a
 * pair. Two children run side by side on the same seeded database: one as an api without an OTLP endpoint
 * that nobody scrapes ("off"), one with tracing (10 % sampled, exported to a sink in the parent) and
 * `/metrics` scraped every 5 s ("on"). Separate runs of the table, minutes apart, differ by more than the
 * 5 % this has to resolve, and so do single slices on a busy machine; so the two apis are loaded in rounds
 * of four 2 s slices, off, on, on, off (a linear drift in background load cancels within a round), each
 * round gives one on ÷ off, and the report gives their median and spread. The baselines are measured the
 * same way once per row, for the ratios the main table shows.
 */

import { writeFile } from 'node:fs/promises';
import type { BenchChild } from './child.js';
import { httpSide, type LoadResult, measureInterleaved, type Side, type SliceResult } from './load.js';
import type { BenchRow, Dataset } from './rows/types.js';
import { planSteps, progress, type RunContext, type Step, seedStep, selectRows, startChild } from './steps.js';
import { type OtlpSink, startOtlpSink, startScraper, TELEMETRY_SAMPLE_RATIO } from './telemetry.js';

/** The rows the issue names: the profile (both session sources) and the first entries page. */
export const TELEMETRY_COST_ROWS = ['auth.profile', 'ledger.entries.first'];

const SLICE_SECONDS = 2;

interface CostResult {
  row: BenchRow;
  size: number;
  roundRatios: RoundRatios;
  /** Both apis and both baselines over the row's normal interleaved measurement. */
  measured: Record<'apiOff' | 'apiOn' | 'baselineOff' | 'baselineOn', LoadResult>;
}

const perSecond = (slice: SliceResult) => slice.ok / slice.elapsedSeconds;

/** A side of the pair: its api under load, and its child's CPU clock. */
interface Half {
  api: Side;
  child: BenchChild;
}

interface Measured {
  perSecond: number;
  /** The child's CPU time (all threads) per answered request, in microseconds. */
  cpuMicros: number;
}

async function slice(half: Half): Promise<Measured> {
  const before = await half.child.call({ type: 'cpu-usage' });
  const result = await half.api.run(SLICE_SECONDS);
  const cpu = (await half.child.call({ type: 'cpu-usage' })) - before;
  return { perSecond: perSecond(result), cpuMicros: cpu / Math.max(1, result.ok) };
}

interface RoundRatios {
  /** on ÷ off requests per second, one per round, sorted. */
  throughput: number[];
  /** on ÷ off CPU time per request, one per round, sorted: less moved by other processes than throughput. */
  cpu: number[];
}

/** Rounds of off, on, on, off; each round's on ÷ off compares slices run within the same 8 seconds. */
async function roundRatios(off: Half, on: Half, rounds: number): Promise<RoundRatios> {
  const ratios: RoundRatios = { throughput: [], cpu: [] };
  const sum = (slices: Measured[], field: keyof Measured) => slices.reduce((total, item) => total + item[field], 0);
  for (let round = 0; round < rounds; round += 1) {
    const first = await slice(off);
    const onSlices = [await slice(on), await slice(on)];
    const offSlices = [first, await slice(off)];
    ratios.throughput.push(sum(onSlices, 'perSecond') / sum(offSlices, 'perSecond'));
    ratios.cpu.push(sum(onSlices, 'cpuMicros') / sum(offSlices, 'cpuMicros'));
  }
  ratios.throughput.sort((a, b) => a - b);
  ratios.cpu.sort((a, b) => a - b);
  return ratios;
}

function sidesOf(child: BenchChild, row: BenchRow, connections: number) {
  const target = child.target(row.key);
  if (!target.baselineUrl) throw new Error(`row ${row.key} has no baseline`);
  return {
    api: httpSide(target.apiUrl, target.request, connections),
    baseline: httpSide(target.baselineUrl, target.request, connections),
  };
}

async function measureRow(children: { off: BenchChild; on: BenchChild }, row: BenchRow, context: RunContext) {
  const load = { ...context.options.load, connections: row.connections ?? context.options.load.connections };
  const off = sidesOf(children.off, row, load.connections);
  const on = sidesOf(children.on, row, load.connections);
  // The four-way measurement only feeds the ratio columns: a quarter of the time, the rounds get the rest.
  const measured = await measureInterleaved(
    { apiOff: off.api, apiOn: on.api, baselineOn: on.baseline, baselineOff: off.baseline },
    { ...load, seconds: Math.max(2 * SLICE_SECONDS, load.seconds / 4) },
  );
  const rounds = Math.max(3, Math.round(load.seconds / (2 * SLICE_SECONDS)));
  const ratios = await roundRatios({ api: off.api, child: children.off }, { api: on.api, child: children.on }, rounds);
  return { measured, roundRatios: ratios };
}

async function measurePair(context: RunContext, step: Step, databaseUrl: string, sink: OtlpSink) {
  await seedStep(databaseUrl, step);
  const telemetry = { otlpEndpoint: sink.url, sampleRatio: TELEMETRY_SAMPLE_RATIO };
  const off = await startChild(context, databaseUrl, step);
  const on = await startChild(context, databaseUrl, step, telemetry).catch(async (error: unknown) => {
    await off.stop();
    throw error;
  });
  const scraper = on.metricsUrl ? startScraper(on.metricsUrl) : null;
  const results: CostResult[] = [];
  try {
    for (const row of step.rows) {
      progress(`${row.name} at ${step.size.toLocaleString('en-US')} ${row.dataset.unit}: telemetry off and on`);
      const result = { row, size: step.size, ...(await measureRow({ off, on }, row, context)) };
      const list = (ratios: number[]) => ratios.map((ratio) => ratio.toFixed(3)).join(' ');
      progress(
        `  on ÷ off per round: req/s ${list(result.roundRatios.throughput)}; CPU/req ${list(result.roundRatios.cpu)}`,
      );
      results.push(result);
    }
  } finally {
    scraper?.stop();
    if (scraper && scraper.counts().failedScrapes > 0) progress(`${scraper.counts().failedScrapes} scrapes failed`);
    await Promise.all([off.stop(), on.stop()]);
  }
  return results;
}

const rate = (result: LoadResult) => Math.round(result.requestsPerSecond).toLocaleString('en-US');
const times = (value: number) => `${value.toFixed(3)}×`;
const quantile = (sorted: number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(fraction * (sorted.length - 1))))]!;

function resultLine({ row, size, roundRatios, measured }: CostResult): string {
  const ratioOff = measured.apiOff.requestsPerSecond / measured.baselineOff.requestsPerSecond;
  const ratioOn = measured.apiOn.requestsPerSecond / measured.baselineOn.requestsPerSecond;
  const middle = (sorted: number[]) =>
    `**${times(quantile(sorted, 0.5))}** (${quantile(sorted, 0.25).toFixed(3)}–${quantile(sorted, 0.75).toFixed(3)})`;
  return `| ${row.name} | ${size.toLocaleString('en-US')} ${row.dataset.unit} | ${rate(measured.apiOff)} | ${rate(measured.apiOn)} | ${ratioOff.toFixed(2)} | ${ratioOn.toFixed(2)} | ${roundRatios.throughput.length} | ${middle(roundRatios.throughput)} | ${middle(roundRatios.cpu)} |`;
}

function renderCost(context: RunContext, results: CostResult[], sink: OtlpSink): string {
  const { load } = context.options;
  const { exports, exportedBytes } = sink.counts();
  return [
    '## Telemetry cost (paired)',
    '',
    `${load.connections} connections; per row ${load.warmupSeconds} s warm-up, ${Math.max(2 * SLICE_SECONDS, load.seconds / 4)} s per side in interleaved slices for the four req/s columns, then rounds of off, on, on, off (2 s slices) for on ÷ off. The "on" child traced ${TELEMETRY_SAMPLE_RATIO * 100} % of requests (${exports} OTLP exports, ${(exportedBytes / 1_000_000).toFixed(1)} MB in all) and was scraped every 5 s.`,
    '',
    '| Row | Data | api off req/s | api on req/s | ratio off | ratio on | rounds | req/s on ÷ off: median (middle half) | CPU per request on ÷ off: median (middle half) |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|',
    ...results.map(resultLine),
    '',
  ].join('\n');
}

export async function runTelemetryCost(context: RunContext): Promise<void> {
  const rows = selectRows(context.options.rowFilter ?? TELEMETRY_COST_ROWS);
  const sink = await startOtlpSink();
  try {
    const results: CostResult[] = [];
    const databases = new Map<Dataset, string>();
    for (const step of planSteps(rows, context.options.mode)) {
      if (!databases.has(step.dataset))
        databases.set(step.dataset, await context.scratch.forDataset(step.dataset.name));
      results.push(...(await measurePair(context, step, databases.get(step.dataset)!, sink)));
    }
    const markdown = renderCost(context, results, sink);
    process.stdout.write(markdown);
    if (context.options.out) {
      await writeFile(context.options.out, markdown);
      progress(`wrote ${context.options.out}`);
    }
  } finally {
    await sink.close();
  }
}
