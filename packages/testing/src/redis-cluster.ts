import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** A local Redis Cluster of three primaries (no replicas), each its own redis-server in a temp directory. */
export interface OwnRedisCluster {
  /** `127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`, as `REDIS_CLUSTER_NODES` takes it. */
  nodes: string;
  ports: number[];
  /** Shuts primary `index` down (SHUTDOWN: its append-only file is written, as a restarted primary reloads it). */
  stopNode(index: number): Promise<void>;
  /** Starts primary `index` again on its port, with its cluster config and data; resolves once the cluster is ok. */
  startNode(index: number): Promise<void>;
  /** Resolves once every node reports cluster_state:ok. */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Failure detection within about a second (the default 15 s would make a failover test slow); the cluster
 * still needs every slot covered, as in production (cluster-require-full-coverage yes).
 */
const NODE_TIMEOUT_MS = 1000;

/**
 * The cluster bus port is set (`cluster-port`, Redis ≥ 7) rather than left at port + 10000, which is past
 * 65535 for a free port above 55535 (Linux hands out up to 60999).
 */
function spawnNode(port: number, busPort: number, dir: string): ChildProcess {
  return spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--cluster-port',
      String(busPort),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      String(NODE_TIMEOUT_MS),
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

async function waitForReady(process: ChildProcess): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
    process.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    process.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${output}`));
    });
  });
}

function terminate(server: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) return resolve();
    server.once('exit', () => resolve());
    server.kill('SIGCONT');
    server.kill('SIGTERM');
  });
}

const cli = (port: number, ...args: string[]) =>
  run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });

async function clusterOk(port: number): Promise<boolean> {
  try {
    const { stdout } = await cli(port, 'cluster', 'info');
    return /cluster_state:ok/.test(stdout);
  } catch {
    return false;
  }
}

/**
 * Starts three cluster-enabled redis-servers on free ports in a temp directory, joins them with
 * `redis-cli --cluster create … --cluster-replicas 0`, and waits for cluster_state:ok (about a second).
 */
export async function startRedisCluster(): Promise<OwnRedisCluster> {
  const root = mkdtempSync(join(tmpdir(), 'nestegg-redis-cluster-'));
  const ports: number[] = [];
  const busPorts: number[] = [];
  while (ports.length < 3) {
    const [port, busPort] = [await freePort(), await freePort()];
    if (port === busPort || [...ports, ...busPorts].some((used) => used === port || used === busPort)) continue;
    ports.push(port);
    busPorts.push(busPort);
  }
  const dirs = ports.map((port) => {
    const dir = join(root, String(port));
    mkdirSync(dir);
    return dir;
  });
  const servers: ChildProcess[] = ports.map((port, index) => spawnNode(port, busPorts[index]!, dirs[index]!));
  const stopAll = async () => {
    await Promise.all(servers.map(terminate));
    rmSync(root, { recursive: true, force: true });
  };
  const waitUntilOk = async (timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(ports.map(clusterOk));
      if (states.every(Boolean)) return;
      if (Date.now() > deadline) throw new Error('the redis cluster did not reach cluster_state:ok');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  try {
    await Promise.all(servers.map(waitForReady));
    await run(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'],
      { timeout: 30_000 },
    );
    await waitUntilOk();
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    waitUntilOk,
    async stopNode(index) {
      await cli(ports[index]!, 'shutdown').catch(() => {});
      await terminate(servers[index]!);
    },
    async startNode(index) {
      const server = servers[index]!;
      if (server.exitCode === null && server.signalCode === null) return;
      servers[index] = spawnNode(ports[index]!, busPorts[index]!, dirs[index]!);
      await waitForReady(servers[index]!);
      await waitUntilOk();
    },
    stop: stopAll,
  };
}
