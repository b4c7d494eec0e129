/** What the soak measured, judged and written as `docs/soak.md`. */
import { readFile, writeFile } from 'node:fs/promises';
import type { Machine } from '../machine.js';
import { type Answer, KINDS, type Kind, RATES } from './load.js';

export interface FaultWindow {
  name: string;
  what: string;
  /** When the fault began (Date.now()). */
  start: number;
  /** Steps of the fault and of the recovery, in order. */
  steps: Array<{ what: string; at: number }>;
  /** Per process: when it was recovered (ready again), ms after `start`. */
  recovered: Record<string, number>;
  /** When the last process recovered. */
  recoveredAt: number;
  /** recoveredAt + the margin. */
  end: number;
}

export interface MemorySample {
  at: number;
  rss?: number;
  /** RssAnon: the part of the RSS that is not mapped files. */
  anon?: number;
  heap?: number;
  cpu?: number;
}

export interface SeriesOf {
  name: string;
  generation: number;
  pid: number;
  samples: MemorySample[];
  startedAt: number;
  endedAt: number;
  killed: boolean;
  exit?: string;
}

export interface SoakResult {
  minutes: number;
  startedAt: number;
  loadStartedAt: number;
  loadEndedAt: number;
  machine: Machine;
  loadAverages: Array<{ at: number; one: number; five: number; fifteen: number }>;
  members: number;
  windows: FaultWindow[];
  marginMs: number;
  answers: Answer[];
  skipped: Record<Kind, number>;
  series: SeriesOf[];
  writes: {
    attempted: number;
    acknowledged: number;
    lost: string[];
    doubled: string[];
    outcomeUnknown: number;
    outcomeUnknownWritten: number;
    refused: number;
    pending: number;
    pendingWritten: number;
    strangers: number;
    boardAcknowledged: number;
    boardLost: string[];
    boardDoubled: string[];
  };
  /** Processes that exited without being killed by the soak. */
  unexpectedExits: string[];
  failoverDetail: string[];
  notes: string[];
}

const median = (values: number[]) => quantile(values, 0.5);

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

/** An answer overlaps a window when it was sent before the window ended and answered after it began. */
export const insideAny = (answer: Answer, windows: FaultWindow[]) =>
  windows.some((window) => answer.began <= window.end && answer.answered >= window.start);

const mb = (bytes: number | undefined) => (bytes === undefined ? '–' : (bytes / 2 ** 20).toFixed(1));
const ms = (value: number) => (Number.isNaN(value) ? '–' : value < 10 ? value.toFixed(1) : String(Math.round(value)));
const clock = (at: number) => new Date(at).toISOString().slice(11, 19);
const since = (result: SoakResult, at: number) => {
  const seconds = Math.round((at - result.loadStartedAt) / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

export interface Flatness {
  series: SeriesOf;
  metric: 'rss' | 'anon' | 'heap';
  middle: number;
  last: number;
  change: number;
  flat: boolean;
  samples: number;
}

/** Last third's median within 10 % of the middle third's, over the instance's own samples. */
export function flatness(series: SeriesOf, metric: Flatness['metric']): Flatness | undefined {
  const values = series.samples.map((sample) => sample[metric]).filter((value): value is number => value !== undefined);
  if (values.length < 6) return undefined;
  const third = Math.floor(values.length / 3);
  const middle = median(values.slice(third, 2 * third));
  const last = median(values.slice(values.length - third));
  const change = (last - middle) / middle;
  return { series, metric, middle, last, change, flat: Math.abs(change) <= 0.1, samples: values.length };
}

export function renderReport(result: SoakResult): string {
  const { answers, windows } = result;
  const outside = answers.filter((answer) => !insideAny(answer, windows));
  const inside = answers.filter((answer) => insideAny(answer, windows));
  const loadSeconds = (result.loadEndedAt - result.loadStartedAt) / 1000;
  const outsideFiveXx = outside.filter((answer) => answer.status >= 500 || answer.status === 0);
  const rssFlat = result.series.map((series) => flatness(series, 'rss'));
  const heapFlat = result.series.map((series) => flatness(series, 'heap'));
  const anonFlat = result.series.map((series) => flatness(series, 'anon'));
  const judged = rssFlat.filter((flat): flat is Flatness => flat !== undefined && flat.series.generation === 1);
  const memoryOk = judged.every((flat) => flat.flat);
  const writesOk =
    result.writes.lost.length === 0 &&
    result.writes.doubled.length === 0 &&
    result.writes.boardLost.length === 0 &&
    result.writes.boardDoubled.length === 0;
  const loads = result.loadAverages.map((sample) => sample.one);
  const lines: string[] = [];
  const push = (...more: string[]) => lines.push(...more);

  push(
    '# Soak with faults',
    '',
    `Written by \`pnpm soak\` (\`bench/src/soak/\`, decision FS4) on ${new Date(result.startedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC; rerun it rather than editing this page (a run keeps "${FINDINGS_HEADING.slice(3)}" at the end). ` +
      'Not part of CI. How it is built and judged: [decisions/faults-and-bursts.md, FS4](decisions/faults-and-bursts.md).',
    '',
    '## Verdicts',
    '',
    '| Criterion | Verdict | Measured |',
    '|---|---|---|',
    `| Memory flat (each process's RSS: the last third's median within 10 % of the middle third's) | ${memoryOk ? 'pass' : judged.every((flat) => flat.change <= 0.1) ? 'FAIL (fell, none grew)' : 'FAIL'} | ${judged.map((flat) => `${flat.series.name}${flat.series.killed ? ' (until killed)' : ''} ${signed(flat.change)}`).join(', ')} |`,
    `| 5xx only inside fault windows | ${outsideFiveXx.length === 0 ? 'pass' : 'FAIL'} | ${outsideFiveXx.length} 5xx or unanswered outside, ${inside.filter((answer) => answer.status >= 500 || answer.status === 0).length} inside |`,
    `| Every acknowledged write present exactly once | ${writesOk ? 'pass' : 'FAIL'} | entries: ${result.writes.acknowledged} acknowledged, ${result.writes.lost.length} lost, ${result.writes.doubled.length} doubled; board: ${result.writes.boardAcknowledged} acknowledged, ${result.writes.boardLost.length} lost, ${result.writes.boardDoubled.length} doubled |`,
    `| No process exits by itself | ${result.unexpectedExits.length === 0 ? 'pass' : 'FAIL'} | ${result.unexpectedExits.length === 0 ? 'none' : result.unexpectedExits.join('; ')} |`,
    `| p50/p99 per request kind outside the windows | reported (no target) | below |`,
    '',
    '## Method',
    '',
    `- **Servers of its own:** a private PostgreSQL primary with a synchronous streaming standby (\`startPrivateReplicatedPostgres\` of \`@nestegg/testing\`, as \`apps/api/src/failover.test.ts\`) and a private \`redis-server\`; the shared servers are not touched.`,
    '- **Processes:** two api replicas (`api-a`, `api-b`) and two billing workers (`worker-1`, `worker-2`) run from their TypeScript sources (`node --import tsx`, `NODE_ENV=development`, `LOG_LEVEL=warn`), every one with `DATABASE_URL=postgres://postgres@127.0.0.1:<primary>,127.0.0.1:<standby>/nestegg?target_session_attrs=read-write` and the private Redis; the apis with `TRUST_PROXY=true`.',
    `- **Load:** ${result.members} members signed up and logged in first, then ${loadSeconds.toFixed(0)} s of open-loop load at ${Object.values(RATES).reduce((a, b) => a + b, 0)} requests/s in all (${KINDS.map((kind) => `${kind} ${RATES[kind]}/s`).join(', ')}), each read, entry write and login for a random member, board writes for the members in turn (inside the board's per-member limits), sent round-robin to the replicas by the soak's own load balancer (a replica that refuses the connection is skipped for the next). Entry writes carry an \`Idempotency-Key\` and are retried with it on 5xx, 409 \`IDEMPOTENCY_KEY_IN_USE\`, 429 and no answer (backing off 0.25 s to 4 s) until acknowledged or the load ends; board posts (with a key) and comments are sent once. A new request is not sent while 80 are in flight (counted as skipped).`,
    `- **Faults** at about 1/4, 1/2 and 3/4 of the load: (a) the primary stopped with \`pg_ctl -m immediate stop\` and the standby promoted 0.2 s later (no new standby is attached: the rest of the run has no replica); (b) the private redis-server stopped, started again 5 s later on the same port (empty); (c) \`api-b\` killed with SIGKILL and started again 1 s later on the same ports. A window runs from the fault until the last process is ready again (\`/readyz\` 200, \`ready\` on the apis; all four processes for (a), both apis for (b), the restarted api for (c)) plus ${result.marginMs / 1000} s. An answer belongs to a window when it was sent before the window ended and answered after it began.`,
    "- **Memory:** every 10 s, each process's RSS (`VmRSS` of `/proc/<pid>/status`) and V8 heap in use (`nodejs_heap_size_used_bytes` from its `/metrics`). Flat means the last third of an instance's samples has a median within 10 % of the middle third's. A restarted replica is a new instance: its series starts again and it is judged over its own life, which is too short to say much (reported, not counted in the verdict); the killed instance is judged over its samples up to the kill.",
    '- **Writes:** at the end every acknowledged entry key (carried in the memo), post key (title) and comment key (body) is looked up on the promoted standby: each must exist exactly once, and no key may exist twice.',
    '',
    '## Machine and load',
    '',
    `${result.machine.cpu}, ${result.machine.cores} cores (${result.machine.availableCores.toFixed(2)} available to a CPU-bound job at the start), ${result.machine.memoryGiB.toFixed(1)} GiB, ${result.machine.os}; Node ${result.machine.node}, PostgreSQL ${result.machine.postgres}, Redis ${result.machine.redis}; commit ${result.machine.revision}. The machine is shared with other engineers' builds and tests: every number below was taken under their load.`,
    '',
    `Load average (1 min) sampled every 10 s: at the start ${loads[0]?.toFixed(2) ?? '–'}, median ${median(loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)}, at the end ${loads.at(-1)?.toFixed(2) ?? '–'} (5 min at the end ${result.loadAverages.at(-1)?.five.toFixed(2) ?? '–'}, 15 min ${result.loadAverages.at(-1)?.fifteen.toFixed(2) ?? '–'}).`,
    '',
    '## Faults and recovery',
    '',
    '| Fault | Began (UTC, run time) | Steps | Each process ready again after the fault began | Window |',
    '|---|---|---|---|---|',
  );
  for (const window of windows) {
    const steps = window.steps
      .map((step) => `${step.what} +${((step.at - window.start) / 1000).toFixed(2)} s`)
      .join('; ');
    const recovered = Object.entries(window.recovered)
      .map(([name, after]) => `${name} ${(after / 1000).toFixed(2)} s`)
      .join(', ');
    push(
      `| ${window.what} | ${clock(window.start)} (${since(result, window.start)}) | ${steps} | ${recovered} | ${((window.end - window.start) / 1000).toFixed(1)} s |`,
    );
  }
  if (result.failoverDetail.length > 0) push('', ...result.failoverDetail.map((line) => `- ${line}`));

  push(
    '',
    '## Latency outside the fault windows',
    '',
    'Every HTTP answer outside the windows, retries included, from the soak process (which shares the machine).',
    '',
    '| Kind | Rate asked (/s) | Answers | p50 (ms) | p99 (ms) | max (ms) | Non-2xx (status: count) |',
    '|---|---|---|---|---|---|---|',
  );
  for (const kind of KINDS) {
    const mine = outside.filter((answer) => answer.kind === kind);
    const times = mine.map((answer) => answer.ms);
    push(
      `| ${kind} | ${RATES[kind]} | ${mine.length} | ${ms(quantile(times, 0.5))} | ${ms(quantile(times, 0.99))} | ${ms(Math.max(...times))} | ${statusCounts(mine.filter((answer) => answer.status < 200 || answer.status >= 300))} |`,
    );
  }
  push(
    '',
    '## Answers that were not successes, inside and outside the windows',
    '',
    '`0` is no answer from any replica (with what the connection did: `ECONNRESET`, `timeout`, …). 4xx are listed too: 409 `IDEMPOTENCY_KEY_IN_USE` is a retried key whose first attempt died with the primary.',
    '',
    '| Kind | 5xx or none inside | 5xx or none outside | Inside (status code: count) | Outside (status code: count) | Skipped (80 in flight) |',
    '|---|---|---|---|---|---|',
  );
  for (const kind of KINDS) {
    const notOk = (answer: Answer) => answer.kind === kind && (answer.status < 200 || answer.status >= 300);
    const bad = (answer: Answer) => answer.status === 0 || answer.status >= 500;
    const inKind = inside.filter(notOk);
    const outKind = outside.filter(notOk);
    push(
      `| ${kind} | ${inKind.filter(bad).length} | ${outKind.filter(bad).length} | ${statusCounts(inKind)} | ${statusCounts(outKind)} | ${result.skipped[kind]} |`,
    );
  }
  for (const window of windows) {
    const mine = answers.filter((answer) => insideAny(answer, [window]));
    push(
      '',
      `In window (${window.name}): ${mine.length} answers, ${statusCounts(mine.filter((answer) => answer.status < 200 || answer.status >= 300))} not successes; slowest ${ms(Math.max(...mine.map((answer) => answer.ms)))} ms.`,
    );
  }

  const w = result.writes;
  push(
    '',
    '## Writes',
    '',
    `- Entry keys: ${w.attempted} attempted, **${w.acknowledged} acknowledged (201), ${w.lost.length} of them missing, ${w.doubled.length} keys with more than one entry**; ${w.outcomeUnknown} ended with 409 \`IDEMPOTENCY_OUTCOME_UNKNOWN\` (${w.outcomeUnknownWritten} of them written, once); ${w.refused} refused with another 4xx; ${w.pending} still unacknowledged when the load stopped (${w.pendingWritten} of them written, once); ${w.strangers} entries with a key the soak never sent.`,
    `- Board: ${w.boardAcknowledged} posts and comments acknowledged, ${w.boardLost.length} missing, ${w.boardDoubled.length} doubled.`,
    ...(w.lost.length > 0 ? [`- Lost keys: ${w.lost.slice(0, 10).join(', ')}`] : []),
    ...(w.doubled.length > 0 ? [`- Doubled keys: ${w.doubled.slice(0, 10).join(', ')}`] : []),
    '',
    '## Memory',
    '',
    'Per process instance: samples every 10 s; medians of the middle and last thirds of its own samples.',
    '',
    '| Process | pid | Samples | RSS first (MB) | RSS middle third (MB) | RSS last third (MB) | Change | Anonymous RSS middle → last (MB) | Heap used middle → last (MB) | Flat (RSS) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  result.series.forEach((series, index) => {
    const rss = rssFlat[index];
    const heap = heapFlat[index];
    const anon = anonFlat[index];
    const verdict =
      rss === undefined
        ? 'too few samples'
        : `${rss.flat ? 'yes' : rss.change > 0 ? '**no: grew**' : '**no: fell**'}${series.generation > 1 ? ` (not judged: ${Math.round((series.endedAt - series.startedAt) / 60_000)} min of life)` : ''}`;
    const label = `${series.name}${series.generation > 1 ? ` (restarted, #${series.generation})` : ''}${series.killed ? ' (killed)' : ''}`;
    push(
      `| ${label} | ${series.pid} | ${series.samples.length} | ${mb(series.samples[0]?.rss)} | ${mb(rss?.middle)} | ${mb(rss?.last)} | ${rss ? signed(rss.change) : '–'} | ${anon ? `${mb(anon.middle)} → ${mb(anon.last)} (${signed(anon.change)})` : '–'} | ${heap ? `${mb(heap.middle)} → ${mb(heap.last)} (${signed(heap.change)})` : '–'} | ${verdict} |`,
    );
  });
  push('', 'RSS over time (MB, one sample a minute; the restarted replica from its restart):', '');
  const names = result.series.map((series) => `${series.name}${series.generation > 1 ? ` #${series.generation}` : ''}`);
  push(`| Run time | ${names.join(' | ')} | load (1 min) |`, `|---|${names.map(() => '---|').join('')}---|`);
  for (let at = result.loadStartedAt; at <= result.loadEndedAt + 5_000; at += 60_000) {
    const cells = result.series.map((series) => {
      const sample = series.samples.find((candidate) => Math.abs(candidate.at - at) <= 5_000);
      return sample ? mb(sample.rss) : '';
    });
    const load = result.loadAverages.find((sample) => Math.abs(sample.at - at) <= 5_000);
    push(`| ${since(result, at)} | ${cells.join(' | ')} | ${load?.one.toFixed(2) ?? ''} |`);
  }
  push(
    '',
    'CPU time used by each instance over its life (user + system, `/proc/<pid>/stat`): ' +
      result.series
        .map((series) => {
          const cpu = series.samples.at(-1)?.cpu;
          return `${series.name}${series.generation > 1 ? ` #${series.generation}` : ''} ${cpu === undefined ? '–' : `${Math.round(cpu)} s`}`;
        })
        .join(', ') +
      '.',
  );
  if (result.notes.length > 0) push('', '## Notes', '', ...result.notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}

const signed = (change: number) => `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`;

function statusCounts(list: Answer[]): string {
  const counts = new Map<string, number>();
  for (const answer of list) {
    const key = `${answer.status}${answer.code ? ` ${answer.code}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return '–';
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${key}: ${count}`)
    .join(', ');
}

/** The heading of the part of the page written by hand after a run; a new run keeps it (and what follows). */
export const FINDINGS_HEADING = '## Findings (written by hand)';

/** Writes the page, keeping the hand-written findings of the page it replaces. */
export async function writePage(out: string, markdown: string): Promise<void> {
  const previous = await readFile(out, 'utf8').catch(() => '');
  const at = previous.indexOf(`\n${FINDINGS_HEADING}\n`);
  await writeFile(out, at < 0 ? markdown : `${markdown}${previous.slice(at)}`);
}
