// The launcher's console (output.mjs, decision F12) on a real child process: its JSON lines pass as they are, its
// other lines become its events, a stack trace one event; on a terminal every event is one pino-pretty line.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, test } from 'vitest';
import { launcherOutput } from './output.mjs';

/** A stdout stand-in that keeps what is written, a terminal or not. */
function screen({ isTTY }) {
  const written = [];
  return { isTTY, write: (text) => written.push(text), lines: () => written.join('').split('\n').filter(Boolean) };
}

const APP_LINE = '{"level":30,"time":1,"pid":7,"hostname":"h","name":"api","msg":"Server listening"}';
const CHILD = `
console.log(${JSON.stringify(APP_LINE)});
console.log('[db:migrate] applying migrations');
console.error(new Error('boom').stack);
`;

describe('launcherOutput', () => {
  test('relays JSON lines as they are and a child’s other lines as its events, a stack trace as one', async () => {
    const stdout = screen({ isTTY: false });
    const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
    launcherOutput(stdout).relay(child, 'db:migrate');
    await once(child, 'close');

    const lines = stdout.lines();
    expect(lines).toContain(APP_LINE);
    const events = lines.filter((line) => line !== APP_LINE).map((line) => JSON.parse(line));
    expect(events).toEqual([
      expect.objectContaining({ level: 30, name: 'db:migrate', pid: child.pid, msg: 'applying migrations' }),
      expect.objectContaining({
        level: 40,
        name: 'db:migrate',
        pid: child.pid,
        msg: expect.stringMatching(/^Error: boom\n +at /),
      }),
    ]);
    expect(Object.keys(events[0])).toEqual(['level', 'time', 'pid', 'hostname', 'name', 'msg']);
  });

  test('on a terminal, prints every event as one pino-pretty line, the launcher’s and the apps’ alike', () => {
    const stdout = screen({ isTTY: true });
    const output = launcherOutput(stdout);
    output.logger('nestegg').info('ready');
    output.logger('api', 7).warn({ port: 3000 }, 'slow');
    expect(stdout.lines().map((line) => stripVTControlCharacters(line))).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(nestegg\/\d+\): ready$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN \(api\/7\): slow \{"port":3000\}$/),
    ]);
  });
});
