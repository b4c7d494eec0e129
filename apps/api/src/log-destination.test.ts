/**
 * Decision P23: the api's log lines go to stdout buffered and asynchronously, and none is held back: an idle
 * line is out within the flush interval, and lines written right before an exit are all out when it exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { LOG_FLUSH_MS } from './logger.js';

const writer = fileURLToPath(new URL('./test/log-writer.fixture.ts', import.meta.url));
let child: ChildProcess | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

function startWriter() {
  child = spawn(process.execPath, ['--conditions=@nestegg/source', '--import', 'tsx', writer], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const messages: string[] = [];
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    messages.push(...lines.map((line) => (JSON.parse(line) as { msg: string }).msg));
  });
  return { process: child, messages };
}

/** Waits until the writer has printed `message` (or 30 s passed); the time it took. */
async function arrival(writer: ReturnType<typeof startWriter>, message: string): Promise<number> {
  const sent = Date.now();
  while (!writer.messages.includes(message) && Date.now() - sent < 30_000) await new Promise((r) => setTimeout(r, 20));
  return Date.now() - sent;
}

it('writes a line logged while idle within the flush interval, without an exit', async () => {
  const writer = startWriter();
  // The first line waits for the child's start (tsx compiles it: seconds on a loaded machine), not the interval.
  writer.process.stdin!.write('line started\n');
  await arrival(writer, 'started');
  writer.process.stdin!.write('line idle\n');
  const took = await arrival(writer, 'idle');
  expect(writer.messages).toEqual(['started', 'idle']);
  expect(writer.process.exitCode).toBeNull();
  // One interval, plus a loaded machine's scheduling.
  expect(took).toBeLessThan(LOG_FLUSH_MS + 2_000);
});

it('writes every line logged right before the process exits', async () => {
  const writer = startWriter();
  // 'close': the process has exited and its stdout has ended.
  const closed = once(writer.process, 'close');
  writer.process.stdin!.write('burst 2000\n');
  const [code] = await closed;
  expect(code).toBe(1);
  expect(writer.messages).toHaveLength(2000);
  expect(writer.messages.at(-1)).toBe('burst 2000');
});
