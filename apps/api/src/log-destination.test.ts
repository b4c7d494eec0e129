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

it('writes a line logged while idle within the flush interval, without an exit', async () => {
  const writer = startWriter();
  writer.process.stdin!.write('line idle\n');
  const sent = Date.now();
  while (!writer.messages.includes('idle') && Date.now() - sent < 10_000) await new Promise((r) => setTimeout(r, 20));
  expect(writer.messages).toEqual(['idle']);
  expect(writer.process.exitCode).toBeNull();
  // One interval, plus the child's start and a loaded machine's scheduling.
  expect(Date.now() - sent).toBeLessThan(LOG_FLUSH_MS + 5_000);
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
