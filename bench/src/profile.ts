/**
 * `pnpm bench --profile <row>`: samples the child's CPU (V8's profiler, as `--cpu-prof` does, but started
 * and stopped around each measured slice only) under the api's load and under the baseline's, in
 * alternating slices, and sums self time per package, per request.
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchChild } from './child.js';
import { type LoadSettings, measureLoad, runLoadFor, runLoadUntil, type SliceResult, sequentialSide } from './load.js';
import { rowByKey } from './rows/index.js';
import type { BenchRow, HttpRequest } from './rows/types.js';
import { progress, type RunContext, seedStep, startChild } from './steps.js';
import { type OtlpSink, startOtlpSink, startScraper, TELEMETRY_SAMPLE_RATIO } from './telemetry.js';

const PROFILE_DIR = new URL('../.profiles/', import.meta.url).pathname;
const TOP_FUNCTIONS = 25;
const SLICE_SECONDS = 2;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
  endTime: number;
  startTime: number;
}

/** Microseconds of the main thread's busy time (idle left out) over a number of requests. */
interface Summary {
  requests: number;
  busyMicros: number;
  /** Self time by package. */
  selfByPackage: Map<string, number>;
  /** Self time of natives and node core added to the package whose code called them. */
  chargedByPackage: Map<string, number>;
  byFunction: Map<string, { pkg: string; micros: number }>;
}

/** Dependencies reported under the library that brings them. */
const FAMILIES: [RegExp, string][] = [
  [
    /^(pino|sonic-boom|pino-std-serializers|fast-redact|@pinojs\/.+|quick-format-unescaped|atomic-sleep|thread-stream|on-exit-leak-free|safe-stable-stringify|fast-copy)$/,
    'pino',
  ],
  [/^(@fastify\/(helmet|cors|under-pressure)|helmet|vary)$/, 'edge plugins (helmet, cors, under-pressure)'],
  [
    /^(fastify|@fastify\/.+|find-my-way|avvio|light-my-request|fast-json-stringify|fast-querystring|fast-decode-uri-component|secure-json-parse|toad-cache|rfdc|abstract-logging|process-warning|fastq|reusify|fastify-plugin|safe-regex2|ret|content-type|json-schema-ref-resolver|ajv|fast-uri)$/,
    'fastify',
  ],
  [/^@ts-rest\//, 'ts-rest'],
  [/^zod$/, 'zod'],
  [/^drizzle-orm$/, 'drizzle'],
  [/^postgres$/, 'postgres.js'],
  [
    /^(ioredis|@ioredis\/.+|redis-parser|redis-errors|denque|cluster-key-slot|standard-as-callback|lodash\..+)$/,
    'ioredis',
  ],
  [/^argon2$/, 'argon2'],
];

const PACKAGE_IN_URL = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/;

function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8 garbage collector';
    if (functionName === '(program)') return 'V8 (program: native, unattributed)';
    return 'V8 builtins and natives';
  }
  if (url.startsWith('node:')) return 'node core (http, net, streams, timers)';
  const dependency = PACKAGE_IN_URL.exec(url)?.[1];
  if (dependency) return FAMILIES.find(([pattern]) => pattern.test(dependency))?.[1] ?? dependency;
  if (url.includes('/apps/api/src/')) return 'our code (apps/api)';
  if (url.includes('/packages/')) return `our code (${/\/packages\/([^/]+)\//.exec(url)?.[1]})`;
  if (url.includes('/bench/src/')) return 'baseline code (bench)';
  return url;
}

function functionLabel(frame: CallFrame): string {
  const file = frame.url
    .replace(/^.*node_modules\/(?!.*node_modules\/)/, '')
    .replace(/^file:\/\/.*\/(apps|packages|bench)\//, '$1/');
  return `\`${frame.functionName || '(anonymous)'}\` ${file}:${frame.lineNumber + 1}`;
}

/** Natives, node core and V8's own work are charged to the first library frame above them. */
const UNCHARGED = new Set(['V8 builtins and natives', 'node core (http, net, streams, timers)']);

const ROOT = '(root)';

function chargedPackages(profile: CpuProfile): Map<number, string> {
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const charged = new Map<number, string>();
  const chargeOf = (id: number): string => {
    const known = charged.get(id);
    if (known) return known;
    const frame = frames.get(id)!;
    const parent = parents.get(id);
    let result = frame.functionName === ROOT ? ROOT : packageOf(frame);
    if (UNCHARGED.has(result) && parent !== undefined) {
      const parentCharge = chargeOf(parent);
      if (parentCharge !== ROOT) result = parentCharge;
    }
    charged.set(id, result);
    return result;
  };
  for (const node of profile.nodes) chargeOf(node.id);
  return charged;
}

const emptySummary = (requests: number): Summary => ({
  requests,
  busyMicros: 0,
  selfByPackage: new Map(),
  chargedByPackage: new Map(),
  byFunction: new Map(),
});

const add = (map: Map<string, number>, key: string, micros: number) => map.set(key, (map.get(key) ?? 0) + micros);

/** Self time per profile node: each sample lasts until the next one (the last until the profile's end). */
export function summarize(profile: CpuProfile, requests: number): Summary {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const charged = chargedPackages(profile);
  const summary = emptySummary(requests);
  let at = profile.startTime;
  const stamps = profile.timeDeltas.map((delta) => {
    at += delta;
    return at;
  });
  profile.samples.forEach((nodeId, index) => {
    const frame = frames.get(nodeId);
    const micros = (stamps[index + 1] ?? profile.endTime) - stamps[index]!;
    if (!frame || frame.functionName === '(idle)') return;
    const pkg = packageOf(frame);
    summary.busyMicros += micros;
    add(summary.selfByPackage, pkg, micros);
    add(summary.chargedByPackage, charged.get(nodeId) ?? pkg, micros);
    const label = functionLabel(frame);
    const entry = summary.byFunction.get(label) ?? { pkg, micros: 0 };
    entry.micros += micros;
    summary.byFunction.set(label, entry);
  });
  return summary;
}

function merge(into: Summary, from: Summary): Summary {
  into.requests += from.requests;
  into.busyMicros += from.busyMicros;
  for (const [pkg, micros] of from.selfByPackage) add(into.selfByPackage, pkg, micros);
  for (const [pkg, micros] of from.chargedByPackage) add(into.chargedByPackage, pkg, micros);
  for (const [label, entry] of from.byFunction) {
    const existing = into.byFunction.get(label) ?? { pkg: entry.pkg, micros: 0 };
    existing.micros += entry.micros;
    into.byFunction.set(label, existing);
  }
  return into;
}

const perRequest = (micros: number, summary: Summary) => (micros / summary.requests).toFixed(1);
const share = (micros: number, summary: Summary) => `${((micros / summary.busyMicros) * 100).toFixed(1)} %`;

function packageTable(api: Summary, baseline: Summary): string[] {
  const packages = [...new Set([...api.selfByPackage.keys(), ...baseline.selfByPackage.keys()])].sort(
    (a, b) => (api.chargedByPackage.get(b) ?? 0) - (api.chargedByPackage.get(a) ?? 0),
  );
  const cells = (summary: Summary, pkg: string) => {
    const self = summary.selfByPackage.get(pkg) ?? 0;
    const charged = summary.chargedByPackage.get(pkg) ?? 0;
    if (self === 0 && charged === 0) return '– | – | –';
    return `${perRequest(self, summary)} | ${perRequest(charged, summary)} | ${share(charged, summary)}`;
  };
  return [
    '| Package | api self µs/req | api charged µs/req | api charged share | baseline self µs/req | baseline charged µs/req | baseline charged share |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...packages.map((pkg) => `| ${pkg} | ${cells(api, pkg)} | ${cells(baseline, pkg)} |`),
    `| **busy total** | **${perRequest(api.busyMicros, api)}** | | 100 % | **${perRequest(baseline.busyMicros, baseline)}** | | 100 % |`,
  ];
}

function functionTable(summary: Summary): string[] {
  const top = [...summary.byFunction].sort((a, b) => b[1].micros - a[1].micros).slice(0, TOP_FUNCTIONS);
  return [
    '| Function | Package | self µs/req | share |',
    '|---|---|--:|--:|',
    ...top.map(
      ([label, entry]) =>
        `| ${label} | ${entry.pkg} | ${perRequest(entry.micros, summary)} | ${share(entry.micros, summary)} |`,
    ),
  ];
}

type Side = 'api' | 'baseline';

interface Profiled {
  requestsPerSecond: number;
  summary: Summary;
}

/** One profiled slice of load on one side; the profile file stays for Chrome DevTools. */
async function profileSlice(child: BenchChild, url: string, request: HttpRequest, load: LoadSettings, file: string) {
  await child.call({ type: 'profile-start' });
  const measured = await measureLoad(url, request, load);
  await child.call({ type: 'profile-stop', file });
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  return { measured, summary: summarize(profile, measured.ok) };
}

/**
 * Both sides warmed up, then profiled in alternating slices (api, baseline, baseline, api, …), as the
 * table measures them, so background load on the machine weighs on both alike.
 */
async function profileBothSides(child: BenchChild, context: RunContext, row: BenchRow, directory: string) {
  const target = child.target(row.key);
  if (!target.baselineUrl) throw new Error(`row ${row.key} has no baseline`);
  const urls: Record<Side, string> = { api: target.apiUrl, baseline: target.baselineUrl };
  const load = { ...context.options.load, connections: row.connections ?? context.options.load.connections };
  const slice = { ...load, warmupSeconds: 0, seconds: SLICE_SECONDS };
  for (const side of ['api', 'baseline'] as const) {
    await measureLoad(urls[side], target.request, { ...slice, seconds: Math.max(2, load.warmupSeconds) });
  }
  const totals: Record<Side, { summary: Summary; ok: number; seconds: number }> = {
    api: { summary: emptySummary(0), ok: 0, seconds: 0 },
    baseline: { summary: emptySummary(0), ok: 0, seconds: 0 },
  };
  const slices = Math.max(1, Math.floor(load.seconds / SLICE_SECONDS));
  for (let index = 0; index < slices; index += 1) {
    const order: Side[] = index % 2 === 0 ? ['api', 'baseline'] : ['baseline', 'api'];
    for (const side of order) {
      const file = join(directory, `${side}-${index + 1}.cpuprofile`);
      const { measured, summary } = await profileSlice(child, urls[side], target.request, slice, file);
      merge(totals[side].summary, summary);
      totals[side].ok += measured.ok;
      totals[side].seconds += measured.ok / measured.requestsPerSecond;
    }
  }
  const result = (side: Side): Profiled => ({
    requestsPerSecond: totals[side].ok / totals[side].seconds,
    summary: totals[side].summary,
  });
  return { api: result('api'), baseline: result('baseline') };
}

/** A profiled stretch of a row that makes its own requests (decision P33), read back from its file. */
async function profiled(child: BenchChild, file: string, run: () => Promise<SliceResult>): Promise<Profiled> {
  await child.call({ type: 'profile-start' });
  const slice = await run();
  await child.call({ type: 'profile-stop', file });
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  return { requestsPerSecond: slice.ok / slice.elapsedSeconds, summary: summarize(profile, slice.ok) };
}

/**
 * A row without a bare route. Measured during background work: one unit under load is profiled (the "api"
 * columns), then as long a slice with none running (the "baseline" columns: quiet), after one unprofiled unit
 * as warm-up; per request, the difference is what the work cost the main thread. Requests made one by one
 * (`next`): the api alone, for the row's measured time, after its warm-up.
 */
async function profileOwnRequests(child: BenchChild, context: RunContext, row: BenchRow, directory: string) {
  const target = child.target(row.key);
  const load = { ...context.options.load, connections: row.connections ?? context.options.load.connections };
  const file = (name: string) => join(directory, `${name}.cpuprofile`);
  if (row.background) {
    const unit = async () => {
      const work = child.call({ type: 'background', key: row.key });
      const slice = await runLoadUntil(target.apiUrl, target.request, load.connections, work);
      progress(`  ${row.background!.label}: ${(await work).detail}`);
      await child.call({ type: 'background', key: row.key, reset: true });
      return slice;
    };
    const warm = await unit();
    const during = await profiled(child, file('during'), unit);
    const seconds = during.summary.requests / during.requestsPerSecond || warm.elapsedSeconds;
    const quiet = await profiled(child, file('quiet'), () =>
      runLoadFor(target.apiUrl, target.request, load.connections, seconds),
    );
    return { api: during, baseline: quiet };
  }
  const side = sequentialSide(target.apiUrl, () => child.call({ type: 'next', key: row.key }), row.minRequests);
  await side.run(load.warmupSeconds);
  const api = await profiled(child, file('api'), () => side.run(load.seconds, true));
  return { api, baseline: { requestsPerSecond: Number.NaN, summary: emptySummary(0) } };
}

function renderProfile(row: BenchRow, size: number, context: RunContext, sides: Record<Side, Profiled>, dir: string) {
  const { load, logLevel } = context.options;
  const { api, baseline } = sides;
  const how = row.background
    ? `${load.connections} connections, one ${row.background.label} profiled under load ("api"), then as long a slice with none running ("baseline": quiet)`
    : row.next
      ? `one request at a time, each made before it is sent (untimed), for ${load.seconds} s and at least ${row.minRequests ?? 1} requests; no baseline`
      : `${load.connections} connections, ${load.seconds} s per side in alternating ${SLICE_SECONDS} s slices`;
  return [
    `## CPU profile: ${row.name} at ${size.toLocaleString('en-US')} ${row.dataset.unit}`,
    '',
    `${how}, LOG_LEVEL=${logLevel}${context.options.telemetry ? ', telemetry on (tracing 10 % sampled and exported, /metrics scraped)' : ''}: api ${api.requestsPerSecond.toFixed(api.requestsPerSecond < 10 ? 2 : 0)} req/s, baseline ${baseline.requestsPerSecond.toFixed(0)} req/s (${(api.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}×).`,
    `Main-thread time of the child per request, idle left out. "self": time in the package's own functions; "charged": plus the natives, node core work and builtins its code called (socket writes, header handling, string building). GC and V8's unattributed time stay on their own. Sampled with CPU contention from other processes counts as the function that was running. Profiles (Chrome DevTools): ${dir}`,
    '',
    ...packageTable(api.summary, baseline.summary),
    '',
    `### Top ${TOP_FUNCTIONS} functions by self time (api)`,
    '',
    ...functionTable(api.summary),
    '',
    `### Top ${TOP_FUNCTIONS} functions by self time (baseline)`,
    '',
    ...functionTable(baseline.summary),
    '',
  ].join('\n');
}

export async function runProfile(context: RunContext, key: string): Promise<void> {
  const row = rowByKey(key);
  // --quick: the smallest size (fast to seed); the full preset: the largest, where growth shows.
  const sizes = row.sizes[context.options.mode];
  const size = context.options.mode === 'full' ? sizes.at(-1)! : sizes[0]!;
  const step = { dataset: row.dataset, size, rows: [row] };
  const databaseUrl = await context.scratch.forDataset(row.dataset.name);
  await seedStep(databaseUrl, step);
  const directory = join(PROFILE_DIR, `${row.key}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await mkdir(directory, { recursive: true });
  // With --telemetry, the api is profiled as operators run it: traced, exporting, scraped.
  const sink: OtlpSink | null = context.options.telemetry ? await startOtlpSink() : null;
  const telemetry = sink ? { otlpEndpoint: sink.url, sampleRatio: TELEMETRY_SAMPLE_RATIO } : null;
  const child = await startChild(context, databaseUrl, step, telemetry);
  const scraper = child.metricsUrl ? startScraper(child.metricsUrl) : null;
  try {
    const sides =
      row.baseline === null
        ? await profileOwnRequests(child, context, row, directory)
        : await profileBothSides(child, context, row, directory);
    const markdown = renderProfile(row, size, context, sides, directory);
    process.stdout.write(markdown);
    const out = context.options.out ?? join(directory, 'summary.md');
    await writeFile(out, markdown);
    progress(`wrote ${out}`);
  } finally {
    scraper?.stop();
    await child.stop();
    await sink?.close();
  }
}
