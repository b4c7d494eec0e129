/**
 * Memory per replica (issue 40): one api process, as deployed (the built `apps/api/dist/server.js`, or the
 * sources with `--source`), on a scratch database and Redis prefix, under a steady mixed load for N minutes.
 * Every few seconds it samples the process's RSS (anonymous and file-backed, glibc's thread arenas) and,
 * through a probe loaded with `--import`, V8's heap, external memory, ArrayBuffers and libvips' cache.
 * Prints the samples as they come, then the steady state: the median of the last third.
 *
 *   pnpm --filter @nestegg/bench memory [--minutes 4] [--env KEY=VAL]... [--node-option --flag]...
 *                                       [--sample-seconds 5] [--members 40] [--rate-scale 1] [--json file]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { BENCH_PASSWORD, benchPasswordHash } from './datasets/members.js';
import { DEFAULT_RATES, type KindName, type Member, MixedLoad, makeImages } from './memory-load.js';
import {
  formatSampleHeader,
  formatSampleRow,
  type MemorySample,
  MemorySampler,
  medianSample,
} from './memory-sampler.js';
import { deleteRedisKeys, ScratchDatabases, scratchRedisPrefix } from './scratch.js';

const USAGE = `pnpm --filter @nestegg/bench memory [--minutes 4] [--env KEY=VAL]... [--node-option=--flag]...
    [--sample-seconds 5] [--members 40] [--rate-scale 1] [--source] [--label text] [--json file]`;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API_DIR = `${ROOT}apps/api/`;
const PROBE = fileURLToPath(new URL('./memory-probe.ts', import.meta.url));
const PASSWORD = BENCH_PASSWORD;

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '4' },
    env: { type: 'string', multiple: true, default: [] },
    'node-option': { type: 'string', multiple: true, default: [] },
    'sample-seconds': { type: 'string', default: '5' },
    members: { type: 'string', default: '40' },
    'rate-scale': { type: 'string', default: '1' },
    source: { type: 'boolean', default: false },
    label: { type: 'string' },
    json: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const minutes = Number(values.minutes);
const sampleSeconds = Number(values['sample-seconds']);
const memberCount = Number(values.members);
const rateScale = Number(values['rate-scale']);
const overrides = Object.fromEntries(
  values.env.map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--env expects KEY=VAL, got ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function seedMembers(databaseUrl: string): Promise<Member[]> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const hash = await benchPasswordHash();
  try {
    await sql`
      insert into member (email, email_verified, password_hash, display_name, provider, created_at)
      select 'memory-' || g || '@bench.nestegg.test', true, ${hash}, 'Memory ' || g, 'LOCAL'::auth_provider,
             now() - interval '30 days'
      from generate_series(1, ${memberCount}::int) as g`;
  } finally {
    await sql.end();
  }
  return Array.from({ length: memberCount }, (_, index) => ({
    email: `memory-${index + 1}@bench.nestegg.test`,
    password: PASSWORD,
  }));
}

function startApi(env: Record<string, string>, logFile: string): ChildProcess {
  const entry = values.source
    ? ['--import', 'tsx', '--conditions=@nestegg/source', `${API_DIR}src/server.ts`]
    : [`${API_DIR}dist/server.js`];
  const child = spawn(process.execPath, [...values['node-option'], '--import', PROBE, ...entry], {
    cwd: API_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  // The api logs a line per request, as deployed; the lines go to a file, not the terminal.
  const log = createWriteStream(logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return child;
}

async function untilReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the api exited with ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.status === 200) return;
    } catch {}
    await sleep(250);
  }
  throw new Error('the api was not ready within 60 s');
}

async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const MB = 1024 * 1024;

async function main(): Promise<void> {
  const baseDatabase = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const scratch = new ScratchDatabases(baseDatabase);
  const redisPrefix = scratchRedisPrefix();
  const label =
    values.label ?? (Object.keys(overrides).length > 0 || values['node-option'].length > 0 ? 'custom' : 'defaults');
  const logFile = `${os.tmpdir()}/nestegg-memory-${process.pid}.log`;
  let child: ChildProcess | undefined;
  let stopping = false;
  const cleanUp = async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000).then(() => child!.kill('SIGKILL'))]);
    }
    await scratch.dropAll().catch((error: unknown) => console.error('dropping the scratch database failed', error));
    await deleteRedisKeys(redisUrl, redisPrefix).catch(() => {});
  };
  process.once('SIGINT', () => {
    if (stopping) return;
    stopping = true;
    void cleanUp().finally(() => process.exit(130));
  });

  try {
    const databaseUrl = await scratch.forDataset('memory');
    const members = await seedMembers(databaseUrl);
    const [port, metricsPort] = [await freePort(), await freePort()];
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      TRUST_PROXY: 'false',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: redisPrefix,
      MEMORY_PROBE_SHARP_FROM: API_DIR,
      ...overrides,
    };
    const baseUrl = `http://127.0.0.1:${port}`;
    const [avatars, board] = await Promise.all([makeImages(4, 640, 640, 85), makeImages(6, 1920, 1440, 85)]);
    child = startApi(env, logFile);
    await untilReady(baseUrl, child);

    const load = new MixedLoad(baseUrl, members, { avatars, board });
    await load.prepare();
    const sampler = new MemorySampler(child);
    const pid = child.pid!;
    const cpuBefore = await cpuSeconds(pid);
    const rates = Object.fromEntries(
      Object.entries(DEFAULT_RATES).map(([kind, rate]) => [kind, rate * rateScale]),
    ) as Record<KindName, number>;
    console.log(
      `memory run "${label}": ${minutes} min, one api (${values.source ? 'sources' : 'dist'}, pid ${pid}), ` +
        `${memberCount} members, ${Object.values(rates)
          .reduce((sum, rate) => sum + rate, 0)
          .toFixed(1)} req/s ` +
        `(${Object.entries(rates)
          .map(([kind, rate]) => `${kind} ${rate}`)
          .join(', ')}), board images ` +
        `${(board.reduce((sum, image) => sum + image.length, 0) / board.length / 1024).toFixed(0)} KB, avatars ` +
        `${(avatars.reduce((sum, image) => sum + image.length, 0) / avatars.length / 1024).toFixed(0)} KB`,
    );
    console.log(
      `settings: ${[...Object.entries(overrides).map(([k, v]) => `${k}=${v}`), ...values['node-option']].join(' ') || 'none'}`,
    );
    console.log(
      `machine: ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}; api log ${logFile}`,
    );
    console.log(`sizes in MB; arenas: resident MB of glibc thread arenas / their count\n${formatSampleHeader()}`);

    const samples: MemorySample[] = [];
    const scrape = setInterval(() => {
      void fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
        (response) => response.arrayBuffer(),
        () => {},
      );
    }, 15_000);
    load.start(rates);
    const end = performance.now() + minutes * 60_000;
    while (performance.now() < end) {
      await sleep(Math.min(sampleSeconds * 1000, end - performance.now()));
      if (child.exitCode !== null) throw new Error(`the api exited with ${child.exitCode}; see ${logFile}`);
      const sample = await sampler.sample();
      samples.push(sample);
      console.log(formatSampleRow(sample));
    }
    clearInterval(scrape);
    await load.stop();
    const cpu = (await cpuSeconds(pid)) - cpuBefore;
    const last = await sampler.sample();

    const steady = samples.slice(Math.floor((samples.length * 2) / 3));
    const median = medianSample(steady);
    console.log(
      `\nsteady (median of the last third, ${steady.length} samples):\n${formatSampleHeader()}\n${formatSampleRow(median)}`,
    );
    const steadyMax = Math.max(...steady.map((sample) => sample.rss));
    console.log(
      `highest RSS sampled in the last third ${(steadyMax / MB).toFixed(0)} MB; peak RSS (VmHWM, start-up and ` +
        `preparation included) ${(last.peakRss / MB).toFixed(0)} MB; api CPU ${cpu.toFixed(0)} s over ${minutes} min`,
    );
    let total = 0;
    for (const [kind, counts] of load.counts) {
      total += counts.sent;
      const sorted = counts.latencies.sort((a, b) => a - b);
      const p = (q: number) =>
        sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0) : '–';
      console.log(
        `  ${kind.padEnd(14)} sent ${String(counts.sent).padStart(5)} ok ${String(counts.ok).padStart(5)} failed ${String(counts.failed).padStart(4)} skipped ${String(counts.skipped).padStart(4)}  p50 ${p(0.5)} ms p99 ${p(0.99)} ms  ${JSON.stringify(counts.statuses)}`,
      );
    }
    console.log(
      `  ${total} requests; load average at the end ${os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
    if (values.json) {
      await writeFile(
        values.json,
        `${JSON.stringify(
          {
            label,
            minutes,
            settings: { env: overrides, nodeOptions: values['node-option'] },
            loadAverage: os.loadavg(),
            cpuSeconds: cpu,
            steady: median,
            steadyMaxRss: steadyMax,
            peakRss: last.peakRss,
            samples,
            requests: Object.fromEntries(
              [...load.counts].map(([kind, counts]) => [kind, { ...counts, latencies: undefined }]),
            ),
          },
          null,
          1,
        )}\n`,
      );
    }
  } finally {
    if (!stopping) await cleanUp();
  }
}

await main();
