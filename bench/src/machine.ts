import { execFileSync } from 'node:child_process';
import { pbkdf2 } from 'node:crypto';
import os from 'node:os';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import postgres from 'postgres';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  redis: string;
  /** 1-minute load average when the run started: other work on the machine skews every number. */
  loadAverage: number;
  /** The commit measured, and whether the working tree had changes on top. */
  revision: string;
  /** Cores a CPU-bound job got just before the run: less than `cores` when other work held the rest. */
  availableCores: number;
}

/** Keeps every core busy for a moment (libuv runs pbkdf2 on its threads) and sees how many it got. */
async function availableCores(cores: number): Promise<number> {
  const hashOnce = () => promisify(pbkdf2)('bench', 'salt', 200_000, 32, 'sha256');
  const started = performance.now();
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: cores * 2 }, hashOnce));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / (performance.now() - started);
}

function gitRevision(): string {
  const root = new URL('../../', import.meta.url).pathname;
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--', 'apps', 'packages') ? `${commit} with uncommitted changes` : commit;
  } catch {
    return 'unknown';
  }
}

async function postgresVersion(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ server_version: string }[]>`show server_version`;
    return row?.server_version ?? 'unknown';
  } finally {
    await sql.end();
  }
}

async function redisVersion(url: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  } finally {
    redis.disconnect();
  }
}

export async function describeMachine(databaseUrl: string, redisUrl: string): Promise<Machine> {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: os.totalmem() / 2 ** 30,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: await postgresVersion(databaseUrl),
    redis: await redisVersion(redisUrl),
    loadAverage: os.loadavg()[0] ?? 0,
    revision: gitRevision(),
    availableCores: await availableCores(Math.min(os.availableParallelism(), 4)),
  };
}
