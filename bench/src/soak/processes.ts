/**
 * The soak's app processes: the api and the billing worker run from their TypeScript sources (as `npm run dev`
 * and the failover test run them), each an instance with its pid, kept output (the last lines only: the soak runs
 * for half an hour) and its exit. A replica that is killed and started again is a new instance of the same name.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '@nestegg/testing';

const apiDir = fileURLToPath(new URL('../../../apps/api/', import.meta.url));
const workerDir = fileURLToPath(new URL('../../../apps/billing-worker/', import.meta.url));
const KEPT_LINES = 200;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Instance {
  /** `api-a`, `api-b`, `worker-1`, `worker-2`; a restarted replica's second instance keeps the name. */
  name: string;
  kind: 'api' | 'worker';
  /** 1 for the first instance of the name, 2 after a restart. */
  generation: number;
  pid: number;
  child: ChildProcess;
  /** The public url (api) or the health url (worker). */
  url: string;
  /** Where `/metrics` is served. */
  metricsUrl: string;
  startedAt: number;
  /** The last lines it printed (warnings and errors: LOG_LEVEL=warn). */
  output: string[];
  lines: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null; at: number };
  /** The soak killed it on purpose. */
  killed: boolean;
}

/** What every process gets: the multi-host URL, the private Redis. */
export interface SharedEnv {
  DATABASE_URL: string;
  REDIS_URL: string;
  REDIS_KEY_PREFIX: string;
}

function spawnInstance(
  name: string,
  kind: Instance['kind'],
  generation: number,
  env: Record<string, string>,
  url: string,
  metricsUrl: string,
): Instance {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(DATABASE_URL|REDIS_URL|REDIS_KEY_PREFIX|PORT|METRICS_PORT|ADMIN_PASSWORD|npm_)/i.test(key),
    ),
  );
  const [cwd, entry] = kind === 'api' ? [apiDir, 'src/server.ts'] : [workerDir, 'src/main.ts'];
  const child = spawn(process.execPath, ['--conditions=@nestegg/source', '--import', 'tsx', entry], {
    cwd,
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const instance: Instance = {
    name,
    kind,
    generation,
    pid: child.pid ?? -1,
    child,
    url,
    metricsUrl,
    startedAt: Date.now(),
    output: [],
    lines: 0,
    killed: false,
  };
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      instance.lines += 1;
      instance.output.push(line);
      if (instance.output.length > KEPT_LINES) instance.output.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code, signal) => {
    instance.exit = { code, signal, at: Date.now() };
  });
  return instance;
}

/** An api replica's ports are chosen once, so its restart listens where the load balancer sends. */
export interface Slot {
  name: string;
  kind: Instance['kind'];
  env: Record<string, string>;
  url: string;
  metricsUrl: string;
  current: Instance;
  instances: Instance[];
}

export async function apiSlot(name: string, shared: SharedEnv): Promise<Slot> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const env = {
    ...shared,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    // The soak's client is the load balancer: it names each simulated client in X-Forwarded-For.
    TRUST_PROXY: 'true',
  };
  return slot(name, 'api', env, `http://127.0.0.1:${port}`, `http://127.0.0.1:${metricsPort}/metrics`);
}

export async function workerSlot(name: string, shared: SharedEnv): Promise<Slot> {
  const port = await freePort();
  const env = { ...shared, WORKER_HOST: '127.0.0.1', WORKER_HEALTH_PORT: String(port) };
  return slot(name, 'worker', env, `http://127.0.0.1:${port}`, `http://127.0.0.1:${port}/metrics`);
}

function slot(name: string, kind: Instance['kind'], env: Record<string, string>, url: string, metricsUrl: string) {
  const current = spawnInstance(name, kind, 1, env, url, metricsUrl);
  return { name, kind, env, url, metricsUrl, current, instances: [current] };
}

/** SIGKILL, then a new instance on the same ports (what an orchestrator does after a crash). */
export async function killAndRestart(target: Slot, pauseMs: number): Promise<Instance> {
  const old = target.current;
  old.killed = true;
  const gone = new Promise<void>((resolve) => (old.exit ? resolve() : old.child.once('exit', () => resolve())));
  old.child.kill('SIGKILL');
  await gone;
  await sleep(pauseMs);
  const next = spawnInstance(target.name, target.kind, old.generation + 1, target.env, target.url, target.metricsUrl);
  target.current = next;
  target.instances.push(next);
  return next;
}

/** 200 from `/readyz`; for an api, `ready` (not `degraded`) when `full`. */
export async function isReady(target: Slot, full: boolean): Promise<boolean> {
  try {
    const response = await fetch(`${target.url}/readyz`, { signal: AbortSignal.timeout(3_000) });
    const body = (await response.json()) as { status?: string };
    return response.ok && (!full || target.kind === 'worker' || body.status === 'ready');
  } catch {
    return false;
  }
}

export async function waitUntilReady(target: Slot, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const instance = target.current;
    if (instance.exit) throw new Error(`${instance.name} exited at start:\n${instance.output.join('\n')}`);
    if (await isReady(target, true)) return;
    await sleep(250);
  }
  throw new Error(`${target.name} did not become ready:\n${target.current.output.join('\n')}`);
}

export function stopInstance(instance: Instance): Promise<void> {
  return new Promise((resolve) => {
    if (instance.exit) return resolve();
    instance.child.once('exit', () => resolve());
    instance.child.kill('SIGTERM');
    setTimeout(() => instance.child.kill('SIGKILL'), 20_000).unref();
  });
}

/**
 * Resident set size from `/proc/<pid>/status`, in bytes: `VmRSS` and its anonymous part (`RssAnon`: heap and
 * native allocations, not the mapped files the kernel may drop); undefined once the process is gone.
 */
export async function residentBytes(pid: number): Promise<{ rss: number; anon?: number } | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => {
      const kib = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
      return kib === undefined ? undefined : Number(kib) * 1024;
    };
    const rss = field('VmRSS');
    return rss === undefined ? undefined : { rss, anon: field('RssAnon') };
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) from `/proc/<pid>/stat`, in seconds. */
export async function cpuSeconds(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat; after the command they are the 12th and 13th.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The V8 heap in use, from the instance's Prometheus `/metrics` (`nodejs_heap_size_used_bytes`). */
export async function heapUsedBytes(instance: Instance): Promise<number | undefined> {
  try {
    const response = await fetch(instance.metricsUrl, { signal: AbortSignal.timeout(3_000) });
    if (!response.ok) return undefined;
    const text = await response.text();
    const value = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([0-9.e+]+)/m.exec(text)?.[1];
    return value === undefined ? undefined : Number(value);
  } catch {
    return undefined;
  }
}
