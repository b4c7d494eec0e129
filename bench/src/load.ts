import autocannon from 'autocannon';
import type { HttpRequest } from './rows/types.js';

export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  /** Measured seconds per side. */
  seconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** 2xx answers measured. */
  ok: number;
  /** How often each status other than 2xx came back, e.g. `{ "503": 12 }`, and connection errors. */
  failures: Record<string, number>;
}

/** What one slice of load (or of a reference speed) came back with. */
export interface SliceResult {
  latenciesMs: number[];
  ok: number;
  failures: Record<string, number>;
  elapsedSeconds: number;
}

/** Each side is measured in slices of at least this length, alternating with the other side. */
const SLICE_SECONDS = 2;
/**
 * Every slice opens its connections afresh, and nothing completes during its first latency: a slice
 * lasts at least this many (warm-up) median latencies, so that ramp costs slow rows a few per cent at most.
 */
const SLICE_LATENCIES = 25;

function failuresOf(result: autocannon.Result): Record<string, number> {
  const failures: Record<string, number> = {};
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    if (!status.startsWith('2') && stats.count) failures[status] = stats.count;
  }
  if (result.errors > 0) failures.errors = result.errors;
  return failures;
}

/** The bytes a request sends: its text, or its binary body (sent over IPC as base64). */
const bodyOf = (request: HttpRequest) =>
  request.bodyBase64 === undefined ? request.body : Buffer.from(request.bodyBase64, 'base64');

/** An autocannon run with no end of its own, stopped when `until` settles. */
const UNTIL_SECONDS = 3_600;

/**
 * autocannon's histogram keeps whole milliseconds, too coarse for 3 ms answers: latencies of 2xx answers
 * are recorded here from its per-response event instead. With `until`, the load runs until it settles.
 */
function runLoad(
  baseUrl: string,
  request: HttpRequest,
  connections: number,
  seconds: number,
  until?: Promise<unknown>,
): Promise<SliceResult> {
  const latenciesMs: number[] = [];
  let ok = 0;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: new URL(request.path, baseUrl).toString(),
        method: request.method,
        headers: request.headers,
        body: bodyOf(request),
        connections,
        pipelining: 1,
        duration: until ? UNTIL_SECONDS : seconds,
      },
      (error, result) => {
        if (error) return reject(error);
        const elapsedSeconds = (performance.now() - started) / 1000;
        resolve({ latenciesMs, ok, failures: failuresOf(result), elapsedSeconds });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode >= 300) return;
      ok += 1;
      latenciesMs.push(responseTime);
    });
    until?.then(
      () => instance.stop(),
      () => instance.stop(),
    );
  });
}

/** Load on `request` for exactly as long as `until` takes to settle (one unit of a row's background work). */
export function runLoadUntil(
  baseUrl: string,
  request: HttpRequest,
  connections: number,
  until: Promise<unknown>,
): Promise<SliceResult> {
  return runLoad(baseUrl, request, connections, 0, until);
}

/** Load on `request` for `seconds`, as one slice. */
export function runLoadFor(
  baseUrl: string,
  request: HttpRequest,
  connections: number,
  seconds: number,
): Promise<SliceResult> {
  return runLoad(baseUrl, request, connections, seconds);
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

export function combine(runs: SliceResult[]): LoadResult {
  const sorted = Float64Array.from(runs.flatMap((run) => run.latenciesMs)).sort();
  const ok = runs.reduce((sum, run) => sum + run.ok, 0);
  const seconds = runs.reduce((sum, run) => sum + run.elapsedSeconds, 0);
  const failures: Record<string, number> = {};
  for (const run of runs) {
    for (const [status, count] of Object.entries(run.failures)) failures[status] = (failures[status] ?? 0) + count;
  }
  return {
    requestsPerSecond: ok / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    ok,
    failures,
  };
}

/** Warms one target up (JIT, pools, caches), then measures it alone. */
export async function measureLoad(baseUrl: string, request: HttpRequest, settings: LoadSettings): Promise<LoadResult> {
  if (settings.warmupSeconds > 0) await runLoad(baseUrl, request, settings.connections, settings.warmupSeconds);
  return combine([await runLoad(baseUrl, request, settings.connections, settings.seconds)]);
}

function median(run: SliceResult): number {
  return percentile(Float64Array.from(run.latenciesMs).sort(), 0.5);
}

/** Slices long enough for the slower side; a side that answered nothing while warming up gets one slice. */
function sliceCount(seconds: number, warmups: SliceResult[]): number {
  const slowestMs = Math.max(0, ...warmups.map((run) => (run.ok === 0 ? Number.POSITIVE_INFINITY : median(run))));
  const sliceSeconds = Math.max(SLICE_SECONDS, (slowestMs * SLICE_LATENCIES) / 1000);
  return Math.max(1, Math.floor(seconds / sliceSeconds));
}

/** Something measured in slices: an HTTP target under load, or a reference speed measured in the child. */
export interface Side {
  /** Loads the side for `seconds` (`measured`: not a warm-up) and says what came back. */
  run(seconds: number, measured?: boolean): Promise<SliceResult>;
  /** HTTP sides warm up; their warm-up latency sets the slice length. */
  warmsUp: boolean;
}

export function httpSide(baseUrl: string, request: HttpRequest, connections: number): Side {
  return { run: (seconds) => runLoad(baseUrl, request, connections, seconds), warmsUp: true };
}

/** The request a sequential side sends next: always the same one, or one made for it (untimed). */
type RequestSource = HttpRequest | (() => Promise<HttpRequest>);

/**
 * One request at a time, each awaited to its end, until `seconds` have passed and at least `minRequests` were
 * sent (at least one): for rows whose request lasts seconds. autocannon drops the request in flight when a
 * slice ends while the server finishes it, so the next slice would share the machine with it; here no request
 * outlives its slice unanswered. A request made for each send is made before its clock starts.
 */
async function runSequential(
  baseUrl: string,
  source: RequestSource,
  seconds: number,
  minRequests = 1,
): Promise<SliceResult> {
  const latenciesMs: number[] = [];
  const failures: Record<string, number> = {};
  const started = performance.now();
  let sentCount = 0;
  /** Time spent in the requests: with requests made one by one, the rate leaves their making out. */
  let timedMs = 0;
  do {
    const request = typeof source === 'function' ? await source() : source;
    const url = new URL(request.path, baseUrl);
    const body = bodyOf(request);
    sentCount += 1;
    const sent = performance.now();
    try {
      const response = await fetch(url, { method: request.method, headers: request.headers, body });
      const answer = await response.text();
      timedMs += performance.now() - sent;
      if (response.ok) latenciesMs.push(performance.now() - sent);
      else {
        failures[String(response.status)] = (failures[String(response.status)] ?? 0) + 1;
        process.stderr.write(
          `[bench]   ${request.method} ${request.path} answered ${response.status}: ${answer.slice(0, 300)}\n`,
        );
      }
    } catch {
      failures.errors = (failures.errors ?? 0) + 1;
    }
  } while (performance.now() - started < seconds * 1000 || sentCount < minRequests);
  const elapsedMs = typeof source === 'function' ? timedMs : performance.now() - started;
  return { latenciesMs, ok: latenciesMs.length, failures, elapsedSeconds: elapsedMs / 1000 };
}

/** Sequential requests; `minRequests` in each measured run (a warm-up sends for its seconds, at least one). */
export function sequentialSide(baseUrl: string, source: RequestSource, minRequests = 1): Side {
  return {
    run: (seconds, measured) => runSequential(baseUrl, source, seconds, measured ? minRequests : 1),
    warmsUp: true,
  };
}

/** A side that only counts operations, e.g. raw `argon2.verify` calls per second. */
export function rateSide(measure: (seconds: number) => Promise<number>): Side {
  return {
    run: async (seconds) => {
      const started = performance.now();
      const perSecond = await measure(seconds);
      const elapsedSeconds = (performance.now() - started) / 1000;
      return { latenciesMs: [], ok: perSecond * elapsedSeconds, failures: {}, elapsedSeconds };
    },
    warmsUp: false,
  };
}

/**
 * Warms the HTTP sides up, then measures every side in slices, forwards then backwards (api, baseline,
 * baseline, api, …), so a change in the machine's background load during the row weighs on all alike.
 */
export async function measureInterleaved<K extends string>(
  sides: Record<K, Side>,
  settings: LoadSettings,
): Promise<Record<K, LoadResult>> {
  const names = Object.keys(sides) as K[];
  const warmups: SliceResult[] = [];
  for (const name of names) {
    if (sides[name].warmsUp && settings.warmupSeconds > 0) warmups.push(await sides[name].run(settings.warmupSeconds));
  }
  const slices = sliceCount(settings.seconds, warmups);
  const runs = Object.fromEntries(names.map((name) => [name, [] as SliceResult[]])) as Record<K, SliceResult[]>;
  for (let slice = 0; slice < slices; slice += 1) {
    const order = slice % 2 === 0 ? names : [...names].reverse();
    for (const name of order) runs[name].push(await sides[name].run(settings.seconds / slices, true));
  }
  return Object.fromEntries(names.map((name) => [name, combine(runs[name])])) as Record<K, LoadResult>;
}
