import { HASH_CONCURRENCY } from './baseline/passwords.js';
import type { LoadResult } from './load.js';
import type { Machine } from './machine.js';
import type { RunOptions } from './options.js';
import type { CountResult, JsonCheck, RequestCounts } from './protocol.js';
import type { BenchRow } from './rows/types.js';
import { SCRAPE_INTERVAL_MS, TELEMETRY_SAMPLE_RATIO, type TelemetryCounts } from './telemetry.js';

export interface RowResult {
  row: BenchRow;
  size: number;
  connections: number;
  api: LoadResult;
  /** Null for a row without a baseline; the quiet side for a row measured during background work. */
  baseline: LoadResult | null;
  /** Null for a row whose requests the child makes one by one (`next`). */
  counts: CountResult | null;
  /** Null for a row without a bare route to compare with. */
  json: JsonCheck | null;
  reference?: { label: string; perSecond: number };
  /**
   * At a row's largest size: p50s measured in alternating slices against a copy of its smallest size (the api
   * and the baseline on both), so a machine that speeds up or slows down during the run moves both ends alike.
   */
  growth?: PairedGrowth;
}

export interface PairedGrowth {
  smallestSize: number;
  api: { smallest: number; largest: number };
  baseline: { smallest: number; largest: number };
  /** Over its target: how the database ran one request's reads at each end (`EXPLAIN (ANALYZE, BUFFERS)`). */
  plans?: { smallest: string[]; largest: string[] };
}

export interface RunReport {
  machine: Machine;
  startedAt: Date;
  elapsedSeconds: number;
  options: RunOptions;
  datasets: { unit: string; sizes: number[] }[];
  results: RowResult[];
  /** What a `--telemetry` run exported and scraped; null without it. */
  telemetry: TelemetryCounts | null;
}

const integer = (value: number) => Math.round(value).toLocaleString('en-US');
const millis = (value: number) =>
  Number.isNaN(value) ? '–' : value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
const ratio = (value: number) => `${value.toFixed(2)}×`;
const perRequest = (value: number) => String(+value.toFixed(2));
const latency = (result: LoadResult) => `${millis(result.p50Ms)} · ${millis(result.p99Ms)}`;

/** NaN for a row without a baseline. */
export const throughputRatio = (result: RowResult) =>
  result.baseline ? result.api.requestsPerSecond / result.baseline.requestsPerSecond : Number.NaN;

/** Concurrent statements (the page and its count) may come in either order. */
const sameList = (a: string[], b: string[]) => [...a].sort().join('\n') === [...b].sort().join('\n');

/** True when there is no bare route to differ from. */
export const sameStatements = (counts: CountResult) =>
  !counts.baseline || sameList(counts.api.statements, counts.baseline.statements);
export const sameRedisCommands = (counts: CountResult) =>
  !counts.baseline || sameList(counts.api.redisCommands, counts.baseline.redisCommands);

/** Every target a result misses and every check it fails, in words for the table. */
export function problemsOf(result: RowResult): string[] {
  const { targets } = result.row;
  const problems: string[] = [];
  const speed = throughputRatio(result);
  if (targets.minThroughputRatio !== undefined && !(speed >= targets.minThroughputRatio)) {
    problems.push(`✗ below ${targets.minThroughputRatio}×`);
  }
  if (targets.maxP50Ms !== undefined && !(result.api.p50Ms <= targets.maxP50Ms)) {
    problems.push(`✗ p50 over ${integer(targets.maxP50Ms)} ms`);
  }
  const statements = result.counts?.api.statementsPerRequest;
  if (targets.maxStatements !== undefined && statements !== undefined && statements > targets.maxStatements) {
    problems.push(`✗ ${perRequest(statements)} statements > ${targets.maxStatements}`);
  }
  if (result.json && !result.json.same) problems.push('✗ JSON differs');
  if (result.counts && !sameStatements(result.counts)) problems.push('✗ SQL differs');
  if (result.counts && !sameRedisCommands(result.counts)) problems.push('✗ Redis calls differ');
  const sides = result.baseline
    ? ([
        ['api', result.api],
        ['baseline', result.baseline],
      ] as const)
    : ([['api', result.api]] as const);
  for (const [side, load] of sides) {
    const failures = Object.entries(load.failures).map(([status, count]) => `${count}× ${status}`);
    if (failures.length > 0) problems.push(`✗ ${side} answered ${failures.join(', ')}`);
  }
  return problems;
}

/** A count per request, the baseline's in brackets; `–` where there is none. */
function countCell(counts: CountResult | null, of: (counts: RequestCounts) => number): string {
  if (!counts) return '–';
  return `${perRequest(of(counts.api))} (${counts.baseline ? perRequest(of(counts.baseline)) : '–'})`;
}

function rowLine(result: RowResult, connections: number): string {
  const { api, baseline, counts } = result;
  const problems = problemsOf(result);
  const ownConnections = result.connections === connections ? '' : `, ${result.connections} connections`;
  // A request of seconds makes less than one a second: its rate with two decimals.
  const rate = (load: LoadResult) =>
    load.requestsPerSecond < 10 && !result.row.background
      ? load.requestsPerSecond.toFixed(2)
      : integer(load.requestsPerSecond);
  return `| ${[
    result.row.name,
    `${integer(result.size)} ${result.row.dataset.unit}${ownConnections}`,
    rate(api),
    latency(api),
    baseline ? rate(baseline) : '–',
    baseline ? latency(baseline) : '–',
    baseline ? `**${ratio(throughputRatio(result))}**` : '–',
    countCell(counts, (side) => side.statementsPerRequest),
    countCell(counts, (side) => side.redisCommandsPerRequest),
    problems.length === 0 ? '✓' : problems.join('; '),
  ].join(' | ')} |`;
}

function mainTable(results: RowResult[], connections: number): string[] {
  return [
    '| Row | Data | api req/s | api p50 · p99 ms | baseline req/s | baseline p50 · p99 ms | api ÷ baseline | SQL / req api (baseline) | Redis / req api (baseline) | Checks |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|---|',
    ...results.map((result) => rowLine(result, connections)),
  ];
}

/** A row's p50 at its smallest and largest size: paired where the run measured it so, else from each size's run. */
function growthOf(smallest: RowResult, largest: RowResult): PairedGrowth & { paired: boolean } {
  if (largest.growth?.smallestSize === smallest.size) return { ...largest.growth, paired: true };
  return {
    smallestSize: smallest.size,
    api: { smallest: smallest.api.p50Ms, largest: largest.api.p50Ms },
    baseline: { smallest: smallest.baseline?.p50Ms ?? Number.NaN, largest: largest.baseline?.p50Ms ?? Number.NaN },
    paired: false,
  };
}

function flatnessTable(results: RowResult[]): string[] {
  const lines: string[] = [];
  for (const row of new Set(results.map((result) => result.row))) {
    const limit = row.targets.maxP50Growth;
    const runs = results.filter((result) => result.row === row).sort((a, b) => a.size - b.size);
    const smallest = runs[0];
    const largest = runs.at(-1);
    if (limit === undefined || !smallest || !largest || runs.length < 2) continue;
    const { api, baseline, paired } = growthOf(smallest, largest);
    const growth = api.largest / api.smallest;
    lines.push(
      `| ${row.name} | ${integer(smallest.size)} → ${integer(largest.size)} ${row.dataset.unit} | ${millis(api.smallest)} → ${millis(api.largest)} | ${ratio(growth)} | ${millis(baseline.smallest)} → ${millis(baseline.largest)} | ${paired ? 'paired' : 'in turn'} | ${growth <= limit ? '✓' : `✗ over ${limit}×`} |`,
    );
  }
  if (lines.length === 0) return [];
  return [
    '',
    '### p50 as the data grows (target: largest ≤ 1.3 × smallest)',
    '',
    "Paired: at the largest size the api and the baseline were measured in alternating slices against a copy of the smallest size's database, so the machine's drift over the run weighs on both ends alike (decision P28). In turn: each size's own measurement, minutes apart.",
    '',
    '| Row | Data | api p50 ms | growth | baseline p50 ms | Measured | Check |',
    '|---|---|--:|--:|--:|---|---|',
    ...lines,
  ];
}

/** The plans the run took of each growth row over its target, so a full run's slow end can be read afterwards. */
function growthPlans(results: RowResult[]): string[] {
  const over = results.filter((result) => result.growth?.plans);
  if (over.length === 0) return [];
  const block = (title: string, plans: string[]) => ['', title, '', '```text', plans.join('\n\n'), '```'];
  return [
    '',
    '### Plans of the rows over their growth target',
    '',
    "Taken right after the row's measurement, from one baseline request at each end (the api sends the same statements).",
    ...over.flatMap(({ row, size, growth }) => [
      '',
      `#### ${row.name}`,
      ...block(`At ${integer(growth!.smallestSize)} ${row.dataset.unit}:`, growth!.plans!.smallest),
      ...block(`At ${integer(size)} ${row.dataset.unit}:`, growth!.plans!.largest),
    ]),
  ];
}

function yardstickTable(results: RowResult[]): string[] {
  const lines = results.flatMap((result) => {
    const over = result.row.targets.maxP50Over;
    const yardstick = over && results.find((other) => other.row.key === over.row && other.size === result.size);
    if (!over || !yardstick) return [];
    const times = result.api.p50Ms / yardstick.api.p50Ms;
    return [
      `| ${result.row.name} | ${yardstick.row.name} | ${integer(result.size)} ${result.row.dataset.unit} | ${millis(result.api.p50Ms)} | ${millis(yardstick.api.p50Ms)} | ${ratio(times)} | ${times <= over.ratio ? '✓' : `✗ over ${over.ratio}×`} |`,
    ];
  });
  if (lines.length === 0) return [];
  return [
    '',
    '### p50 against another row at the same data size',
    '',
    '| Row | Against | Data | api p50 ms | its p50 ms | ratio | Check |',
    '|---|---|---|--:|--:|--:|---|',
    ...lines,
  ];
}

function referenceTable(results: RowResult[]): string[] {
  const withReference = results.filter((result) => result.reference);
  if (withReference.length === 0) return [];
  return [
    '',
    '### Login against raw argon2id',
    '',
    `argon2id with the api's settings (m = 19 MiB, t = 2, p = 1), as many verifications in flight as the row has connections, in the api's process. The api verifies at most ${HASH_CONCURRENCY} at a time on this machine (decision FS1: the cores less one, leaving a core to the event loop), and so does the baseline; the reference is what an unbounded login could reach.`,
    '',
    '| Row | api logins/s | baseline logins/s | reference | reference/s | api ÷ reference |',
    '|---|--:|--:|---|--:|--:|',
    ...withReference.map((result) => {
      const reference = result.reference!;
      return `| ${result.row.name} | ${integer(result.api.requestsPerSecond)} | ${result.baseline ? integer(result.baseline.requestsPerSecond) : '–'} | ${reference.label} | ${integer(reference.perSecond)} | ${ratio(result.api.requestsPerSecond / reference.perSecond)} |`;
    }),
  ];
}

function countsList(counts: RequestCounts): string[] {
  return [
    ...counts.statements.map((statement) => `  - SQL ${statement}`),
    ...counts.redisCommands.map((command) => `  - Redis ${command}`),
  ];
}

/** What one request of each row sends, at the row's largest size; the baseline's too where it differs. */
function trafficList(results: RowResult[]): string[] {
  const lines = ['', '### What one request sends (api)', ''];
  for (const row of new Set(results.map((result) => result.row))) {
    const result = results.filter((candidate) => candidate.row === row).at(-1)!;
    const { counts, json } = result;
    if (!counts) continue;
    lines.push(`- ${row.name}:`, ...countsList(counts.api));
    if (counts.baseline && (!sameStatements(counts) || !sameRedisCommands(counts))) {
      lines.push('  - the baseline sends instead:', ...countsList(counts.baseline).map((line) => `  ${line}`));
    }
    if (json && !json.same) lines.push(`  - JSON differs: ${json.detail}`);
  }
  return lines;
}

function telemetryLine(counts: TelemetryCounts | null): string[] {
  if (!counts)
    return [
      '- Telemetry: metrics recorded, no tracing and no scrapes (as an api without OTLP endpoint that nobody scrapes).',
    ];
  const megabytes = (counts.exportedBytes / 1_000_000).toFixed(1);
  return [
    `- Telemetry (\`--telemetry\`): tracing on with ${TELEMETRY_SAMPLE_RATIO * 100} % of traces sampled (\`parentbased_traceidratio\`), exported over OTLP/HTTP to a sink in the parent (${integer(counts.exports)} exports, ${megabytes} MB); \`/metrics\` on its own listener, scraped from the parent every ${SCRAPE_INTERVAL_MS / 1000} s (${integer(counts.scrapes)} scrapes, ${counts.failedScrapes} failed).`,
  ];
}

function poolerLine(options: RunOptions): string[] {
  if (options.pooler === 'none') return [];
  return [
    `- PostgreSQL (\`--pooler pgbouncer\`): the api behind a PgBouncer in transaction mode on this machine, started for the run (Debian's \`pgbouncer\`, \`default_pool_size\` ${options.poolSize}), with \`DATABASE_POOLER=transaction\` (unnamed statements, the statement timeout as \`SET LOCAL\`) and its LISTEN on \`DATABASE_DIRECT_URL\`; the baselines stay on PostgreSQL, prepared (decision DB18).`,
  ];
}

function redisLine(options: RunOptions): string[] {
  if (options.redis === 'single') return [];
  return [
    "- Redis (`--redis cluster`): a local Redis Cluster of 3 primaries, no replicas, on this machine, started for the run; the api with `REDIS_CLUSTER_NODES` and the baselines with ioredis' `Cluster` client (the api's options: primaries only, no offline queue). The `Redis stopped` rows still use a private single `redis-server`.",
  ];
}

/** The end of the header's first paragraph: the report is rewritten, the rest of the file is not (decision DL18). */
export const RERUN_NOTE =
  'Rerun it rather than editing this report. The reports it replaced, and what was measured by hand on them, are in [performance-history.md](performance-history.md); what still holds from those is under "Latest findings" at the end.';

function header(report: RunReport): string[] {
  const { machine, options } = report;
  const load = options.load;
  const sizes = report.datasets.map((dataset) => `${dataset.sizes.map(integer).join(' / ')} ${dataset.unit}`);
  return [
    '# Performance',
    '',
    `Written by \`pnpm bench${options.mode === 'quick' ? ' --quick' : ''}\` on ${report.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC against \`${machine.revision}\` (apps and packages); the run took ${Math.round(report.elapsedSeconds)} s. ${RERUN_NOTE}`,
    '',
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM, ${machine.os}; Node ${machine.node}, PostgreSQL ${machine.postgres}, Redis ${machine.redis}, all on this machine. Before the run: 1-minute load average ${machine.loadAverage.toFixed(1)}, and a CPU-bound probe got ${machine.availableCores.toFixed(1)} of ${machine.cores} cores; other work on the machine moves every number.`,
    `- Load: autocannon over loopback from the parent process, ${load.connections} connections, every row of a child warmed up in turn (${load.warmupSeconds} s a side) before the first is measured, then each row ${load.warmupSeconds} s warm-up and ${load.seconds} s measured per side, one run, in alternating 2 s slices (api, baseline, baseline, api, …) so background load weighs on both alike.`,
    `- Server: one child process hosts the api (\`buildApp\` from source under tsx, NODE_ENV=production, LOG_LEVEL=${options.logLevel} to /dev/null, pool of ${options.poolSize}, load shedding as in production (event-loop delay over 1 s, heap; utilisation off by default since FS2), source-mapped stack traces off as under \`node dist/server.js\`; no setting differs from production) and, on other ports, a bare Fastify route per row doing the same SQL (postgres.js tagged templates, prepared) and Redis calls and answering the same JSON (pool of ${options.poolSize}).`,
    `- Data: ${sizes.join('; ')} (scratch database, seeded with SQL, vacuumed and analysed, then a CHECKPOINT so no write-back of the seed runs during the measurements).`,
    ...redisLine(options),
    ...poolerLine(options),
    ...telemetryLine(report.telemetry),
  ];
}

/** How to read the report, its targets and how to run it: the same in every report. */
export const FOOTER = [
  '',
  '## Reading the table',
  '',
  "- api ÷ baseline: the api's requests/s over the bare route's. p50 · p99: latencies of 2xx answers under the stated load (with a fixed number of connections, latency is connections ÷ throughput).",
  '- SQL / req and Redis / req: statements and Redis commands one request sends, counted in the child (postgres.js `debug` hook, ioredis `sendCommand`) over 10 requests, the quietest of three tries (the api also runs statements of its own, e.g. a session-invalidation drain every second); BEGIN/COMMIT count as statements.',
  "- Checks: each row's api and baseline must answer the same JSON (tokens and times aside) and send the same SQL and Redis commands; a ✗ there means the baseline needs updating before its ratio means anything.",
  '- Redis stopped: that api and its baseline start with a private `redis-server`, log in, then the server is stopped; ioredis fails fast (no offline queue) and the session comes from the `auth_session` backup.',
  '- Plans: a growth row over its target gets `EXPLAIN (ANALYZE, BUFFERS)` of each read one baseline request sends, at both ends, right after its measurement ("Plans of the rows over their growth target"), so a slow end can be read after the run.',
  '',
  '## Targets',
  '',
  "- Every list endpoint: ≥ 0.7× its baseline's throughput (issue 22; 0.5× before it); p50 at 1,000,000 rows ≤ 1.3× p50 at 10,000 rows (the table compares the smallest and largest sizes the row ran at); at most 3 SQL statements per request whatever the page size.",
  "- Single reads (the profile rows, net worth now) are held to the same 0.7× and 3 statements. The login is held to 0.7× and 5 statements against a baseline that verifies under the api's bound on hashes at once (decision P25), and is also reported against raw, unbounded verifications.",
  '- The delta feed (300 changes) is held to at most 2× the p50 of a 100-row cursor page of entries at the same data size (issue 22).',
  "- Ledger rows: `entries` grow the service around one member's fixed household ledger (5,000 entries), so every row must stay flat; `entries of one member` grow that member's own ledger, where page 1 sums the whole ledger by design (decision L9) and is held to the speed and statement targets only.",
  '',
  '## Running it',
  '',
  'What a run does and what each option means: [benchmarks.md](benchmarks.md).',
  '',
  '```sh',
  'pnpm bench                                  # full run (about 60 minutes), writes this file',
  'pnpm bench --quick                          # smaller data, shorter runs (about 12 minutes), writes this file',
  'pnpm bench --quick --rows admin.members     # some rows (keys or key prefixes); prints, does not write',
  "pnpm bench --quick --profile auth.profile   # CPU profile of the api and the baseline under one row's load",
  'pnpm bench --quick --rows auth --redis cluster  # the rows on a local 3-primary Redis Cluster; prints',
  'pnpm bench --quick --rows auth.profile --pooler pgbouncer  # the api behind PgBouncer (transaction mode); prints',
  'pnpm bench --quick --rows auth.profile --telemetry  # tracing (10 % sampled) and /metrics scraped; prints',
  'pnpm bench --quick --telemetry-cost --duration 24  # telemetry off and on side by side (profile, entries rows)',
  '```',
  '',
  'A run that writes this file replaces the report above "Latest findings" and keeps that section as it is; the report it replaces becomes an entry of `performance-history.md`, under the date of its own run (decision DL18). With `--out <file>` the same happens to that file and the `-history.md` file beside it. A run that only prints is written up by hand: an entry in the history, and a line in "Latest findings" for what still holds.',
  '',
  'It needs PostgreSQL (a superuser: it creates and drops scratch databases) at `TEST_DATABASE_URL` and Redis at `TEST_REDIS_URL` (defaults `postgres://postgres@127.0.0.1:5432/postgres`, `redis://127.0.0.1:6379`; it uses and then deletes keys under a scratch prefix), and `redis-server` on the PATH (and `redis-cli` for `--redis cluster`). Other options: `--connections`, `--duration`, `--warmup`, `--log-level`, `--api-log <file>`, `--pool`, `--out`. Rows live in `bench/src/rows/<area>.ts`, one file per area, listed in `bench/src/rows/index.ts`.',
];

export function renderReport(report: RunReport): string {
  return [
    ...header(report),
    '',
    ...mainTable(report.results, report.options.load.connections),
    ...flatnessTable(report.results),
    ...growthPlans(report.results),
    ...yardstickTable(report.results),
    ...referenceTable(report.results),
    ...trafficList(report.results),
    ...FOOTER,
    '',
  ].join('\n');
}
