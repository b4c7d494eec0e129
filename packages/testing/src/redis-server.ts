import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './ports.js';

/** A Redis server of the test's own, which the test can pause (as if the network dropped it) and resume. */
export interface OwnRedisServer {
  url: string;
  /** SIGSTOP: connections stay open, commands time out, data is kept (the harshest outage for a cache). */
  pause(): void;
  resume(): void;
  /** Shuts the server down: connections are refused until `start` (its data is gone: it keeps none). */
  stop(): Promise<void>;
  /** Starts a stopped server again on the same port. */
  start(): Promise<void>;
}

async function waitForReady(process: ChildProcess): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start')), 10_000);
    process.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    process.on('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
}

function spawnRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function terminate(server: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) return resolve();
    server.kill('SIGCONT');
    server.once('exit', () => resolve());
    server.kill('SIGTERM');
  });
}

export async function startOwnRedisServer(): Promise<OwnRedisServer> {
  const port = await freePort();
  let server = spawnRedis(port);
  await waitForReady(server);
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => server.kill('SIGSTOP'),
    resume: () => server.kill('SIGCONT'),
    stop: () => terminate(server),
    start: async () => {
      if (server.exitCode === null && server.signalCode === null) return;
      server = spawnRedis(port);
      await waitForReady(server);
    },
  };
}
