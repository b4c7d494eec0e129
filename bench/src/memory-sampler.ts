/**
 * What a process holds, read from outside it (Linux `/proc`) and, when it runs the probe
 * (`memory-probe.ts`, loaded with `--import`), from inside it over IPC. Shared by the memory harness
 * (`memory.ts`) and meant for the soak: nothing here knows about the api.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** One sample; sizes in bytes, `null` where the source did not answer. */
export interface MemorySample {
  /** Seconds since the sampler started. */
  at: number;
  /** `VmRSS` of /proc/<pid>/status: what a container's memory limit counts (with the page cache it dirties). */
  rss: number;
  /** `VmHWM`: the highest RSS so far. */
  peakRss: number;
  /** From smaps_rollup: anonymous memory (heaps, arenas, stacks) and file-backed pages (code, mapped files). */
  anonymous: number | null;
  file: number | null;
  /** Threads of the process (libuv's pool, V8's, libvips', …). */
  threads: number;
  /**
   * Resident bytes of glibc malloc arenas made for threads (64 MiB-aligned reservations of 64 MiB), and how
   * many there are; the main arena (brk heap) is `brkHeap`. `null` when smaps could not be read.
   */
  threadArenas: number | null;
  threadArenaCount: number | null;
  brkHeap: number | null;
  /** From the probe: `process.memoryUsage()`. */
  heapUsed: number | null;
  heapTotal: number | null;
  external: number | null;
  arrayBuffers: number | null;
  /** From the probe: the young generation's size (V8's new space), part of `heapTotal`. */
  youngGeneration: number | null;
  /** From the probe: libvips' operation cache, when the process has loaded sharp. */
  vipsCache: number | null;
}

/** What the probe answers (see memory-probe.ts). */
export interface ProbeReply {
  type: 'memory-probe';
  id: number;
  usage: NodeJS.MemoryUsage;
  youngGeneration: number;
  vipsCache: number | null;
}

const KIB = 1024;
const ARENA_SIZE = 64 * 1024 * KIB;

function field(text: string, name: string): number | null {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text);
  return match ? Number(match[1]) * KIB : null;
}

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  rss: number;
}

function parseSmaps(text: string): Mapping[] {
  const mappings: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      current = {
        start: BigInt(`0x${header[1]}`),
        end: BigInt(`0x${header[2]}`),
        perms: header[3]!,
        name: header[4]!.trim(),
        rss: 0,
      };
      mappings.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss && current) current.rss = Number(rss[1]) * KIB;
  }
  return mappings;
}

/**
 * glibc gives each thread arena a 64 MiB reservation aligned to 64 MiB (HEAP_MAX_SIZE on 64-bit): anonymous
 * mappings, the used part read-write and the rest `---p`, adjacent and together exactly 64 MiB. V8's pages and
 * thread stacks are not aligned or sized like that, so this counts arenas and what they hold resident.
 */
function arenasOf(mappings: Mapping[]): GlibcHeaps {
  const alignment = BigInt(ARENA_SIZE);
  let resident = 0;
  let count = 0;
  let brk = 0;
  for (let index = 0; index < mappings.length; index += 1) {
    const mapping = mappings[index]!;
    if (mapping.name === '[heap]') brk += mapping.rss;
    if (mapping.name !== '' || mapping.start % alignment !== 0n) continue;
    let end = mapping.end;
    let rss = mapping.rss;
    let next = index + 1;
    while (
      next < mappings.length &&
      mappings[next]!.start === end &&
      mappings[next]!.name === '' &&
      end - mapping.start < alignment
    ) {
      end = mappings[next]!.end;
      rss += mappings[next]!.rss;
      next += 1;
    }
    if (end - mapping.start === alignment && mapping.perms.startsWith('rw')) {
      resident += rss;
      count += 1;
      index = next - 1;
    }
  }
  return { resident, count, brk };
}

/** glibc's heaps in a process's `/proc/<pid>/smaps` text: its thread arenas (resident bytes, count) and brk heap. */
export interface GlibcHeaps {
  resident: number;
  count: number;
  brk: number;
}

export function glibcHeapsOf(smaps: string): GlibcHeaps {
  return arenasOf(parseSmaps(smaps));
}

/** Asks the probe in `child` for its numbers; resolves null after `timeoutMs` (no probe, or a busy loop). */
function askProbe(child: ChildProcess, id: number, timeoutMs: number): Promise<ProbeReply | null> {
  if (!child.connected) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      resolve(null);
    }, timeoutMs);
    const onMessage = (message: unknown) => {
      const reply = message as ProbeReply;
      if (reply?.type !== 'memory-probe' || reply.id !== id) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(reply);
    };
    child.on('message', onMessage);
    child.send({ type: 'memory-probe', id });
  });
}

/** Reads one sample of `child` (its pid's /proc files, and its probe when it has one). */
export class MemorySampler {
  private readonly started = performance.now();
  private asked = 0;

  constructor(
    private readonly child: ChildProcess,
    private readonly options: { probeTimeoutMs?: number; arenas?: boolean } = {},
  ) {}

  async sample(): Promise<MemorySample> {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error('the process has no pid');
    this.asked += 1;
    const [status, rollup, smaps, probe] = await Promise.all([
      readFile(`/proc/${pid}/status`, 'utf8'),
      readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => null),
      this.options.arenas === false ? null : readFile(`/proc/${pid}/smaps`, 'utf8').catch(() => null),
      askProbe(this.child, this.asked, this.options.probeTimeoutMs ?? 2000),
    ]);
    const arenas = smaps === null ? null : glibcHeapsOf(smaps);
    const threads = /^Threads:\s+(\d+)$/m.exec(status);
    return {
      at: (performance.now() - this.started) / 1000,
      rss: field(status, 'VmRSS') ?? 0,
      peakRss: field(status, 'VmHWM') ?? 0,
      anonymous: rollup === null ? null : field(rollup, 'Anonymous'),
      file: rollup === null ? null : (field(rollup, 'Rss') ?? 0) - (field(rollup, 'Anonymous') ?? 0),
      threads: threads ? Number(threads[1]) : 0,
      threadArenas: arenas?.resident ?? null,
      threadArenaCount: arenas?.count ?? null,
      brkHeap: arenas?.brk ?? null,
      heapUsed: probe?.usage.heapUsed ?? null,
      heapTotal: probe?.usage.heapTotal ?? null,
      external: probe?.usage.external ?? null,
      arrayBuffers: probe?.usage.arrayBuffers ?? null,
      youngGeneration: probe?.youngGeneration ?? null,
      vipsCache: probe?.vipsCache ?? null,
    };
  }
}

/** The median of each numeric column over `samples` (nulls left out). */
export function medianSample(samples: MemorySample[]): Record<keyof MemorySample, number | null> {
  const keys = Object.keys(samples[0] ?? {}) as (keyof MemorySample)[];
  const result = {} as Record<keyof MemorySample, number | null>;
  for (const key of keys) {
    const values = samples
      .map((sample) => sample[key])
      .filter((value): value is number => value !== null)
      .sort((a, b) => a - b);
    if (values.length === 0) {
      result[key] = null;
      continue;
    }
    const middle = Math.floor(values.length / 2);
    result[key] = values.length % 2 === 1 ? values[middle]! : (values[middle - 1]! + values[middle]!) / 2;
  }
  return result;
}

const MB = 1024 * 1024;
const mb = (value: number | null) => (value === null ? '–' : (value / MB).toFixed(0));

export const SAMPLE_COLUMNS: Array<[string, (sample: Record<keyof MemorySample, number | null>) => string]> = [
  ['t(s)', (s) => (s.at === null ? '–' : s.at.toFixed(0))],
  ['rss', (s) => mb(s.rss)],
  ['anon', (s) => mb(s.anonymous)],
  ['file', (s) => mb(s.file)],
  ['heapUsed', (s) => mb(s.heapUsed)],
  ['heapTotal', (s) => mb(s.heapTotal)],
  ['young', (s) => mb(s.youngGeneration)],
  ['external', (s) => mb(s.external)],
  ['arrayBuf', (s) => mb(s.arrayBuffers)],
  ['arenas', (s) => (s.threadArenas === null ? '–' : `${mb(s.threadArenas)}/${s.threadArenaCount}`)],
  ['brk', (s) => mb(s.brkHeap)],
  ['vips', (s) => mb(s.vipsCache)],
  ['threads', (s) => (s.threads === null ? '–' : String(s.threads))],
];

/** A fixed-width row of `SAMPLE_COLUMNS` (MB, arenas as MB/count). */
export function formatSampleRow(sample: MemorySample | Record<keyof MemorySample, number | null>): string {
  return SAMPLE_COLUMNS.map(([name, value]) =>
    value(sample as Record<keyof MemorySample, number | null>).padStart(Math.max(name.length, 7)),
  ).join(' ');
}

export function formatSampleHeader(): string {
  return SAMPLE_COLUMNS.map(([name]) => name.padStart(Math.max(name.length, 7))).join(' ');
}
