import { parse } from 'csv-parse/sync';
import type { Grid } from './header.js';

export const DELIMITERS = [',', '\t', ';', '|'] as const;

const LINE_BREAK = /\r\n|\r|\n/g;

/** How many records the delimiter is judged on. */
const SAMPLE_RECORDS = 60;

/**
 * The delimiter under which the first records split most consistently: the most records share one field count
 * above 1 (title and period lines above the header, with their own counts, do not disturb it); on a tie the larger
 * count, then the order , TAB ; |.
 */
export function detectDelimiter(text: string): string {
  let best: string = ',';
  let bestScore = -1;
  let bestWidth = 0;
  for (const delimiter of DELIMITERS) {
    const records = parseRecords(text, delimiter, SAMPLE_RECORDS, 1).records.filter((r) =>
      r.some((c) => c.trim() !== ''),
    );
    const counts = new Map<number, number>();
    for (const r of records) if (r.length > 1) counts.set(r.length, (counts.get(r.length) ?? 0) + 1);
    let score = 0;
    let width = 0;
    for (const [w, n] of counts) if (n > score || (n === score && w > width)) [score, width] = [n, w];
    if (score > bestScore || (score === bestScore && width > bestWidth)) {
      [best, bestScore, bestWidth] = [delimiter, score, width];
    }
  }
  return best;
}

/**
 * A CSV text as a grid: csv-parse (quotes, quoted line breaks, stray quotes tolerated, ragged rows kept), at most
 * `maxRecords` records; each row's number is the line it starts on. A file whose quotes never close is read again
 * with quotes as plain characters.
 */
export function readCsvGrid(
  text: string,
  delimiter: string,
  maxRecords: number,
  firstLine = 1,
): Grid & { capped: boolean } {
  // csv-parse builds an error object (relaxed, yet costly) for every record whose width differs from the first
  // record's, so the title and period lines above the table come from the sample and the table is parsed again
  // from the line of its first record of the common width (from_line), which its rows are measured against.
  const sample = parseRecords(text, delimiter, Math.min(SAMPLE_RECORDS, maxRecords), 1);
  const width = commonWidth(sample.records);
  const first = width > 1 ? sample.records.findIndex((r) => r.length === width) : 0;
  let parsed: { records: string[][]; starts: number[] } | null = null;
  if (first > 0) {
    const line = sample.starts[first]!;
    const body = parseRecords(text, delimiter, maxRecords - first, line, line);
    // from_line counts lines as csv-parse does (a quoted line break above can shift it): used only when it lands on
    // the record the sample found there.
    if (body.records[0]?.join('\u0000') === sample.records[first]!.join('\u0000')) {
      parsed = {
        records: [...sample.records.slice(0, first), ...body.records],
        starts: [...sample.starts.slice(0, first), ...body.starts],
      };
    }
  }
  const { records, starts } = parsed ?? parseRecords(text, delimiter, maxRecords, 1);
  return {
    rows: records.map((r) => r.map((c) => c.trim())),
    rowNumbers: starts.map((s) => s + firstLine - 1),
    capped: records.length >= maxRecords,
  };
}

/** The field count most records above 1 share (the larger on a tie), or 0. */
function commonWidth(records: string[][]): number {
  const counts = new Map<number, number>();
  for (const r of records) if (r.length > 1) counts.set(r.length, (counts.get(r.length) ?? 0) + 1);
  let best = 0;
  let width = 0;
  for (const [w, n] of counts) if (n > best || (n === best && w > width)) [best, width] = [n, w];
  return width;
}

function parseRecords(
  text: string,
  delimiter: string,
  to: number,
  firstLine: number,
  fromLine = 1,
): { records: string[][]; starts: number[] } {
  const run = (quote: boolean) => {
    const starts: number[] = [];
    let line = firstLine;
    // With `raw`, csv-parse hands on_record `{ record, raw }`; its types do not say so.
    const onRecord = (({ record, raw }: { record: string[]; raw: string }) => {
      starts.push(line);
      line += raw.match(LINE_BREAK)?.length ?? 0;
      return record;
    }) as unknown as (record: string[]) => string[];
    const records = parse(text, {
      delimiter,
      quote: quote ? '"' : false,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: false,
      bom: true,
      to,
      from_line: fromLine,
      raw: true,
      on_record: onRecord,
    });
    return { records, starts };
  };
  try {
    return run(true);
  } catch {
    return run(false);
  }
}
