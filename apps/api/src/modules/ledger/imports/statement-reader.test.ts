import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKGROUND_THREAD_NICE } from '../../../lib/worker-script.js';
import { StatementReader } from './statement-reader.js';

/** The nice value of each thread of this process (Linux: `/proc/self/task/<tid>/stat`, field 19). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[16]);
  });
}

describe.runIf(process.platform === 'linux')('the statement reader’s thread (decision P34)', () => {
  const reader = new StatementReader({ maxQueued: 1, maxHeapMb: 128 });
  afterAll(() => reader.close());

  it('reads at a lower CPU priority than the requests, which keep theirs', async () => {
    const before = threadNiceValues();
    expect(before).not.toContain(BACKGROUND_THREAD_NICE);
    const csv = new TextEncoder().encode('날짜,가맹점,금액\n2026-05-12,이마트,54300\n');
    const read = await reader.read({ bytes: csv, fileName: 'card.csv', referenceDate: '2026-06-01' });
    expect(read.lines).toHaveLength(1);
    const after = threadNiceValues();
    expect(after.filter((nice) => nice === BACKGROUND_THREAD_NICE)).toHaveLength(1);
    expect(after.filter((nice) => nice !== BACKGROUND_THREAD_NICE).every((nice) => nice === before[0])).toBe(true);
  });
});
