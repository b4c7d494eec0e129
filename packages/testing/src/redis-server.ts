import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A Redis server of the test's own, which the test can pause (as if the network dropped it) and resume. */
export interface OwnRedisServer {
  url: string;
  /** SIGSTOP: connections stay open, commands time out, data is kept (the harshest outage for a cache). */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
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

export async function startOwnRedisServer(): Promise<OwnRedisServer> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await waitForReady(server);
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => server.kill('SIGSTOP'),
    resume: () => server.kill('SIGCONT'),
    stop: () =>
      new Promise((resolve) => {
        server.kill('SIGCONT');
        server.once('exit', () => resolve());
        server.kill('SIGTERM');
      }),
  };
}
