/**
 * How `pnpm bench` writes its report (decision DL18): the hand-written part of the file stays as it is, and the
 * report it replaces moves to the history file, newest first, with nothing lost. The last tests replay a run on
 * copies of the real docs/performance.md and docs/performance-history.md.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addToHistory,
  HAND_WRITTEN_MARKER,
  historyEntryOf,
  historyPathOf,
  replaceReport,
  splitReportFile,
  writeReportFile,
} from './report-file.js';

const docs = fileURLToPath(new URL('../../docs/', import.meta.url));

/** A report as `renderReport` writes one, started at `minute` (`2026-12-06 10:00`). */
const reportOf = (minute: string, revision: string, body = '| Row | api |\n|---|--:|\n| profile | 1 |') =>
  [
    '# Performance',
    '',
    `Written by \`pnpm bench\` on ${minute} UTC against \`${revision}\` (apps and packages); the run took 3400 s.`,
    '',
    body,
    '',
    '### What one request sends (api)',
    '',
    '- profile: 1 SQL',
    '',
    '## Running it',
    '',
    '```sh',
    '# a comment line in a code block is not a heading',
    'pnpm bench',
    '```',
    '',
  ].join('\n');

const HAND = `${HAND_WRITTEN_MARKER}\n\n## Latest findings\n\n- what still holds ([entry](performance-history.md#x)).\n`;

/** Whether `lines` holds every line of `expected` in the same order (other lines may come between). */
function inOrder(lines: string[], expected: string[]): boolean {
  let at = 0;
  for (const line of lines) if (line === expected[at]) at += 1;
  return at === expected.length;
}

/** The `## ` lines of a history (its entries, and any such line in a code block). */
const headings = (text: string) => text.split('\n').filter((line) => line.startsWith('## '));

describe('the report file', () => {
  it('splits at the marker, outside code blocks only', () => {
    const text = `${reportOf('2026-12-06 10:00', 'abc1234')}\n${HAND}`;
    expect(splitReportFile(text)).toEqual({
      report: reportOf('2026-12-06 10:00', 'abc1234').trim(),
      handWritten: HAND,
    });
    const fenced = `# Performance\n\n\`\`\`text\n${HAND_WRITTEN_MARKER}\n\`\`\`\n`;
    expect(splitReportFile(fenced)).toEqual({ report: fenced.trim(), handWritten: null });
  });

  it('replaces the report and keeps the hand-written part byte for byte; a new file gets the marker alone', () => {
    const before = `${reportOf('2026-11-28 05:25', 'ebc75ae')}\n${HAND}`;
    const after = replaceReport(before, reportOf('2026-12-06 10:00', 'abc1234'));
    expect(after).toBe(`${reportOf('2026-12-06 10:00', 'abc1234').trimEnd()}\n\n${HAND}`);
    expect(splitReportFile(after).handWritten).toBe(HAND);
    expect(replaceReport(null, reportOf('2026-12-06 10:00', 'abc1234'))).toBe(
      `${reportOf('2026-12-06 10:00', 'abc1234').trimEnd()}\n\n${HAND_WRITTEN_MARKER}\n`,
    );
  });

  it('names the history file after the report file', () => {
    expect(historyPathOf('/repo/docs/performance.md')).toBe('/repo/docs/performance-history.md');
    expect(historyPathOf('/tmp/run')).toBe('/tmp/run-history.md');
  });
});

describe('a replaced report in the history', () => {
  it("becomes an entry dated by its own run, its headings one level down and its text otherwise the report's", () => {
    const entry = historyEntryOf(reportOf('2026-11-28 05:25', 'ebc75ae'), new Date('2026-12-06T10:00:00Z'));
    expect(entry.startedAt).toBe('2026-11-28 05:25');
    const lines = entry.text.split('\n');
    expect(lines[0]).toBe('## 2026-11-28 05:25 UTC · The report of `pnpm bench` against `ebc75ae`');
    expect(lines).toContain('#### What one request sends (api)');
    expect(lines).toContain('### Running it');
    expect(lines).toContain('# a comment line in a code block is not a heading');
    expect(lines).not.toContain('# Performance');
    const unchanged = reportOf('2026-11-28 05:25', 'ebc75ae')
      .trim()
      .split('\n')
      .filter((line) => !/^#{1,6} /.test(line) || line.startsWith('# a comment'));
    expect(inOrder(lines, unchanged)).toBe(true);
  });

  it('is dated when it was replaced when it names no run', () => {
    const entry = historyEntryOf('# Performance\n\nnotes', new Date('2026-12-06T10:00:30Z'));
    expect(entry.startedAt).toBe('2026-12-06 10:00');
    expect(entry.text.split('\n')[0]).toMatch(/^## 2026-12-06 10:00 UTC · /);
  });

  const history = [
    '# Performance history',
    '',
    'Intro.',
    '',
    '## 2026-11-28 05:25 UTC · Notes on that run',
    '',
    'text',
    '',
    '```text',
    '## 2020-01-01 inside a code block: not an entry',
    '```',
    '',
    '## 2026-11-27 · An investigation',
    '',
    '### 2026-11-28 04:50 UTC follow-up (part of the entry above)',
    '',
    '## Earlier runs, kept in git',
    '',
    'table',
    '',
  ].join('\n');
  const entryAt = (startedAt: string) => ({ startedAt, text: `## ${startedAt} UTC · Report\n\nbody` });

  it('goes above the first entry dated before it: newest first, undated entries counting as older', () => {
    expect(headings(addToHistory(history, entryAt('2026-11-28 05:25')))).toEqual([
      '## 2026-11-28 05:25 UTC · Notes on that run',
      '## 2020-01-01 inside a code block: not an entry',
      '## 2026-11-28 05:25 UTC · Report',
      '## 2026-11-27 · An investigation',
      '## Earlier runs, kept in git',
    ]);
    expect(headings(addToHistory(history, entryAt('2026-12-06 10:00')))[0]).toBe('## 2026-12-06 10:00 UTC · Report');
    expect(headings(addToHistory(history, entryAt('2026-11-20 10:00'))).slice(-2)).toEqual([
      '## 2026-11-20 10:00 UTC · Report',
      '## Earlier runs, kept in git',
    ]);
  });

  it('keeps every line of the history, and starts a history when there is none', () => {
    const after = addToHistory(history, entryAt('2026-11-28 01:00'));
    expect(after.replace('## 2026-11-28 01:00 UTC · Report\n\nbody\n\n', '')).toBe(history);
    expect(addToHistory(null, entryAt('2026-11-28 01:00'))).toBe(
      '# Performance history\n\n## 2026-11-28 01:00 UTC · Report\n\nbody\n',
    );
  });
});

describe('a run written over the real docs', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bench-report-'));
    await copyFile(join(docs, 'performance.md'), join(dir, 'performance.md'));
    await copyFile(join(docs, 'performance-history.md'), join(dir, 'performance-history.md'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps "Latest findings", moves the replaced report to the history under its date, and loses no line', async () => {
    const path = join(dir, 'performance.md');
    const historyPath = join(dir, 'performance-history.md');
    const before = await readFile(path, 'utf8');
    const historyBefore = await readFile(historyPath, 'utf8');
    const { report: replaced, handWritten } = splitReportFile(before);
    expect(handWritten).toMatch(/^<!-- .*\n\n## Latest findings\n/);
    const revision = /against `(\w+)`/.exec(replaced)![1]!;
    const runLine = `## ${/on (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC/.exec(replaced)![1]} UTC · The report of \`pnpm bench\` against \`${revision}\``;

    const next = reportOf('2099-01-01 10:00', 'abc1234');
    expect(await writeReportFile(path, next, new Date('2099-01-01T10:00:00Z'))).toBe(historyPath);

    expect(await readFile(path, 'utf8')).toBe(`${next.trimEnd()}\n\n${handWritten}`);
    const history = await readFile(historyPath, 'utf8');
    const lines = history.split('\n');
    expect(inOrder(lines, historyBefore.split('\n'))).toBe(true);
    const demoted = replaced
      .split('\n')
      .slice(1)
      .map((line) => (/^#{1,5} /.test(line) ? `#${line}` : line));
    expect(inOrder(lines, [runLine, ...demoted])).toBe(true);
    // Above every entry dated before it, below those dated at or after its start.
    const entries = headings(history);
    const at = entries.indexOf(runLine);
    expect(at).toBeGreaterThan(-1);
    for (const heading of entries.slice(0, at)) expect(heading.slice(3, 19) >= runLine.slice(3, 19)).toBe(true);
    expect(entries[at + 1]!.slice(3, 19) < runLine.slice(3, 19) || !/^## \d{4}/.test(entries[at + 1]!)).toBe(true);

    // The run after that: its predecessor goes on top, the first stays where it went.
    await writeReportFile(path, reportOf('2099-01-02 10:00', 'def5678'), new Date('2099-01-02T10:00:00Z'));
    const again = headings(await readFile(historyPath, 'utf8'));
    expect(again[0]).toBe('## 2099-01-01 10:00 UTC · The report of `pnpm bench` against `abc1234`');
    expect(again).toContain(runLine);
    expect(splitReportFile(await readFile(path, 'utf8')).handWritten).toBe(handWritten);
  });

  it('archives the whole of a file without the marker and starts the hand-written part empty', async () => {
    const path = join(dir, 'old.md');
    await writeFile(path, `${reportOf('2026-11-20 10:00', 'old1234')}\n## Notes written by hand\n\nkept\n`);
    await writeReportFile(path, reportOf('2099-01-01 10:00', 'abc1234'), new Date('2099-01-01T10:00:00Z'));
    expect(splitReportFile(await readFile(path, 'utf8')).handWritten).toBe(`${HAND_WRITTEN_MARKER}\n`);
    const history = await readFile(join(dir, 'old-history.md'), 'utf8');
    expect(history).toMatch(/^# Performance history\n\n## 2026-11-20 10:00 UTC · The report of `pnpm bench`/);
    expect(history).toContain('### Notes written by hand\n\nkept');
  });
});
