/**
 * How a run's report is written to its file without losing what was there (decision DL18).
 *
 * The report file (`docs/performance.md` by default) is the generated report, then a marker line, then what is
 * written by hand ("Latest findings"). A run replaces the part above the marker with its own report and keeps
 * the rest as it is. The report it replaces moves to the history file beside it (`docs/performance-history.md`
 * for `docs/performance.md`): an entry of its own, dated by that run's start, placed above every entry dated
 * before it, so the history stays newest first.
 */

import { readFile, writeFile } from 'node:fs/promises';

/** The line between the generated report and the part written by hand. */
export const HAND_WRITTEN_MARKER =
  '<!-- pnpm bench rewrites everything above this line and keeps everything below it (decision DL18). -->';

/** The history file of a report file: `performance.md` → `performance-history.md`, in the same folder. */
export const historyPathOf = (reportPath: string) => reportPath.replace(/(\.md)?$/, '-history.md');

export interface ReportFileParts {
  /** The generated report of the run that wrote the file; empty when there is none. */
  report: string;
  /** The marker and everything after it; null when the file has no marker (all of it is then the report). */
  handWritten: string | null;
}

const isFence = (line: string) => line.startsWith('```');

export function splitReportFile(text: string): ReportFileParts {
  const lines = text.split('\n');
  let fenced = false;
  for (const [index, line] of lines.entries()) {
    if (isFence(line)) fenced = !fenced;
    if (!fenced && line === HAND_WRITTEN_MARKER) {
      return { report: lines.slice(0, index).join('\n').trim(), handWritten: lines.slice(index).join('\n') };
    }
  }
  return { report: text.trim(), handWritten: null };
}

/** The new file: this run's report, then the previous file's hand-written part (or the marker alone). */
export function replaceReport(previous: string | null, markdown: string): string {
  const handWritten = (previous !== null && splitReportFile(previous).handWritten) || `${HAND_WRITTEN_MARKER}\n`;
  return `${markdown.trimEnd()}\n\n${handWritten}`;
}

/** `2026-11-28 05:25`: minutes, UTC, the form report headers and history headings use. */
export const minuteOf = (date: Date) => date.toISOString().slice(0, 16).replace('T', ' ');

const RUN_LINE = /^Written by `([^`]+)` on (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC against `([^`]+)`/m;

/**
 * A replaced report as a history entry: its title becomes a `## <start> UTC · …` heading and its other headings
 * go one level down; the text is otherwise the report's own. Without a run line (a report written by hand or by
 * an older harness) it is dated `replacedAt`.
 */
export function historyEntryOf(report: string, replacedAt: Date): { startedAt: string; text: string } {
  const run = RUN_LINE.exec(report);
  const startedAt = run?.[2] ?? minuteOf(replacedAt);
  const heading = run
    ? `## ${startedAt} UTC · The report of \`${run[1]}\` against \`${run[3]}\``
    : `## ${startedAt} UTC · The report replaced by the run of this time (it names no run of its own)`;
  const lines = report.split('\n');
  if (/^# /.test(lines[0] ?? '')) lines.shift();
  let fenced = false;
  const body = lines.map((line) => {
    if (isFence(line)) fenced = !fenced;
    return !fenced && /^#{1,5} /.test(line) ? `#${line}` : line;
  });
  return { startedAt, text: [heading, ...body].join('\n').trim() };
}

/** `2026-11-28 05:25 UTC · …` → `2026-11-28 05:25`; a date alone counts as its midnight; null when undated. */
function entryDate(heading: string): string | null {
  const match = /^## (\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2}))?/.exec(heading);
  return match ? `${match[1]} ${match[2] ?? '00:00'}` : null;
}

/**
 * The history with `entry` added above the first entry (`## ` heading) that is not dated at or after
 * `startedAt`, or at the end when there is none: entries are newest first, and an undated one (such as the
 * index of runs kept only in git) counts as older.
 */
export function addToHistory(history: string | null, entry: { startedAt: string; text: string }): string {
  if (history === null) return `# Performance history\n\n${entry.text}\n`;
  const lines = history.split('\n');
  let fenced = false;
  for (const [index, line] of lines.entries()) {
    if (isFence(line)) fenced = !fenced;
    if (fenced || !line.startsWith('## ')) continue;
    const date = entryDate(line);
    if (date === null || date < entry.startedAt) {
      return [...lines.slice(0, index), ...entry.text.split('\n'), '', ...lines.slice(index)].join('\n');
    }
  }
  return `${history.trimEnd()}\n\n${entry.text}\n`;
}

async function readIfThere(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Writes `markdown` as the report of `path`, keeping the file's hand-written part, and moves the report it
 * replaces to the history file. The history is written first: a failure in between leaves that report in both
 * files, never in neither. Returns the history file's path when a report moved there.
 */
export async function writeReportFile(path: string, markdown: string, startedAt: Date): Promise<string | null> {
  const previous = await readIfThere(path);
  const replaced = previous === null ? '' : splitReportFile(previous).report;
  let historyPath: string | null = null;
  if (replaced !== '') {
    historyPath = historyPathOf(path);
    const history = await readIfThere(historyPath);
    await writeFile(historyPath, addToHistory(history, historyEntryOf(replaced, startedAt)));
  }
  await writeFile(path, replaceReport(previous, markdown));
  return historyPath;
}
