import { parseAmount } from './amounts.js';
import { type Field, namedColumns, nameOf } from './columns.js';
import { dateShape, isCalendarDate } from './dates.js';
import { quoted } from './decode.js';
import { StatementError } from './errors.js';
import type { StatementLimits, StatementTable } from './types.js';

/** How many rows from the top are searched for the header row (titles, account and period lines come first). */
export const HEADER_SCAN_ROWS = 50;

/** All rows of a file as read (cells trimmed), and each row's 1-based line or row number in the file. */
export interface Grid {
  rows: string[][];
  rowNumbers: number[];
}

type Located = Pick<StatementTable, 'headerRow' | 'header' | 'rows' | 'rowNumbers' | 'period'>;

const AMOUNT_FIELDS: Field[] = ['amount', 'withdrawal', 'deposit'];

/**
 * The header row of a grid and the data rows under it. The header is the row within the first 50 that names a
 * date column and an amount (or withdrawal/deposit) column and names the most columns; failing that, the row right
 * above the first rows holding a date and an amount. A two-row header (a merged `이용금액` over `원화 | 현지`) is read
 * as one. Throws NO_HEADER, EMPTY or TOO_MANY_ROWS.
 */
export function locateHeader(grid: Grid, fileName: string, limits: StatementLimits): Located {
  const { rows } = grid;
  if (!rows.some((row) => row.some((c) => c !== ''))) {
    throw new StatementError('EMPTY', `${quoted(fileName)} is empty: it holds no rows. Download the statement again.`);
  }
  let index = namedHeader(rows) ?? dataHeader(rows);
  if (index === null) {
    throw new StatementError(
      'NO_HEADER',
      `${quoted(fileName)} has no header row we recognise: none of its first ${HEADER_SCAN_ROWS} rows names a date column and an ` +
        'amount column (like 이용일자 and 이용금액, 거래일시 and 출금/입금, or Date and Amount). ' +
        'Upload the file as the card or bank site gives it, or add such a header row above the transactions.',
    );
  }
  let header = rows[index]!;
  const below = rows[index + 1];
  const above = rows[index - 1];
  if (below && isSubHeader(below) && groupsOver(header, below)) {
    header = combine(header, below);
    index++;
  } else if (above && isSubHeader(above) && above.some((c) => nameOf(c)) && groupsOver(above, header)) {
    header = combine(above, header);
  }
  const dataRows = rows.slice(index + 1);
  if (!dataRows.some((row) => row.some((c) => c !== ''))) {
    throw new StatementError(
      'EMPTY',
      `${quoted(fileName)} has a header row but no transactions under it. Check the period chosen when downloading the statement.`,
    );
  }
  if (dataRows.length > limits.maxRows) throw tooManyRows(fileName, limits);
  return {
    headerRow: index,
    header,
    rows: dataRows,
    rowNumbers: grid.rowNumbers.slice(index + 1),
    period: periodOf(rows.slice(0, index)),
  };
}

export function tooManyRows(fileName: string, limits: StatementLimits): StatementError {
  return new StatementError(
    'TOO_MANY_ROWS',
    `${quoted(fileName)} has more than ${limits.maxRows.toLocaleString('en-US')} rows of transactions, more than one upload takes. ` +
      'Download shorter periods and upload them one by one.',
  );
}

function namedHeader(rows: string[][]): number | null {
  let best: number | null = null;
  let bestScore = 0;
  const end = Math.min(rows.length, HEADER_SCAN_ROWS);
  for (let r = 0; r < end; r++) {
    const named = namedColumns(rows[r]!);
    if (named.date === undefined || !AMOUNT_FIELDS.some((f) => named[f] !== undefined)) continue;
    const score = Object.keys(named).length;
    if (score > bestScore) {
      best = r;
      bestScore = score;
    }
  }
  return best;
}

/** A row of text cells right above rows that hold a date and an amount in the same columns. */
function dataHeader(rows: string[][]): number | null {
  const end = Math.min(rows.length - 1, HEADER_SCAN_ROWS);
  for (let r = 0; r < end; r++) {
    const row = rows[r]!;
    const filled = row.filter((c) => c !== '');
    if (filled.length < 2 || filled.some((c) => dateShape(c) || isAmount(c))) continue;
    const next = rows.slice(r + 1, r + 6).filter((x) => x.some((c) => c !== ''));
    if (next.length === 0) continue;
    const width = Math.max(...next.map((x) => x.length));
    let dateColumn = -1;
    let amountColumn = -1;
    for (let c = 0; c < width; c++) {
      if ((row[c] ?? '') === '') continue;
      if (dateColumn < 0 && next.every((x) => fullDate(x[c] ?? ''))) dateColumn = c;
      else if (amountColumn < 0 && next.every((x) => isAmount(x[c] ?? ''))) amountColumn = c;
    }
    if (dateColumn >= 0 && amountColumn >= 0) return r;
  }
  return null;
}

function isAmount(cell: string): boolean {
  return parseAmount(cell) !== null || parseAmount(cell, true) !== null;
}

function fullDate(cell: string): boolean {
  const shape = dateShape(cell);
  return shape !== null && shape.kind !== 'pair';
}

const SUB_HEADER_WORD =
  /원화|외화|현지|통화|국내|해외|금액|us\$|krw|usd|입금|출금|일시불|할부|개월|원금|수수료|이자|회차|^\(.*\)$/i;

/** A row of short text cells only, one of them a header name or a unit (원화, 현지, 통화 …). */
function isSubHeader(row: string[]): boolean {
  const filled = row.filter((c) => c !== '');
  if (filled.length === 0) return false;
  if (filled.some((c) => c.length > 24 || dateShape(c) || parseAmount(c))) return false;
  return filled.some((c) => SUB_HEADER_WORD.test(c) || nameOf(c));
}

/**
 * Whether the upper row has a group cell over parts in the lower row: a cell spanning sub-headers (merged: the same
 * text in adjacent cells, as spans are expanded) or followed by blanks (an unmerged export: KB국민카드's `이번달
 * 결제금액 | | ` over `회차 | 원금 | 수수료(이자)`), with parts under it that are not its own name again.
 */
function groupsOver(upper: string[], lower: string[]): boolean {
  // Over blanks only in a row of names (at least half as many cells as the parts' row): a title or an `계좌번호 | …`
  // line above the header is no group.
  const filled = (row: string[]) => row.filter((c) => c !== '').length;
  const namesRow = filled(upper) >= 2 && filled(upper) * 2 >= filled(lower);
  for (let c = 0; c + 1 < Math.max(upper.length, lower.length); c++) {
    const head = upper[c] ?? '';
    const part = lower[c] ?? '';
    if (head === '' || part === '' || part === head || (lower[c + 1] ?? '') === '') continue;
    const next = upper[c + 1] ?? '';
    if (next === head || (next === '' && namesRow)) return true;
  }
  return false;
}

/** The group cell a blank upper cell belongs to: the nearest filled one to its left over an unbroken run of parts. */
function groupOf(upper: string[], lower: string[], c: number): string {
  for (let g = c - 1; g >= 0; g--) {
    if ((lower[g] ?? '') === '') return '';
    const head = upper[g] ?? '';
    if (head !== '') return head !== lower[g] ? head : '';
  }
  return '';
}

/** Two header rows as one: `이용금액 원화`, `이번달 결제금액 원금`; a name both rows give once. */
function combine(upper: string[], lower: string[]): string[] {
  const width = Math.max(upper.length, lower.length);
  return Array.from({ length: width }, (_, c) => {
    const part = lower[c] ?? '';
    const head = (upper[c] ?? '') || (part === '' ? '' : groupOf(upper, lower, c));
    const parts = [head, part].filter((p) => p !== '');
    return [...new Set(parts)].join(' ');
  });
}

const FULL_DATE =
  /(?<!\d)(\d{4})\s*[-./년]\s*(\d{1,2})\s*[-./월]\s*(\d{1,2})(?!\d)|(?<!\d)(20\d{2})(\d{2})(\d{2})(?!\d)/g;
const YEAR_MONTH = /(?<!\d)(\d{4})\s*(?:년|[-./])\s*(\d{1,2})\s*월?(?![\d.])/;

/** The statement period the lines above the header state: all full dates in them (first and last), else a month. */
export function periodOf(preamble: string[][]): { from: string; to: string } | null {
  const dates: string[] = [];
  for (const row of preamble) {
    const text = row.join(' ').normalize('NFKC');
    for (const m of text.matchAll(FULL_DATE)) {
      const [y, mo, d] = m[1] ? [+m[1], +m[2]!, +m[3]!] : [+m[4]!, +m[5]!, +m[6]!];
      if (isCalendarDate(y, mo, d)) dates.push(`${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
    }
  }
  if (dates.length > 0) {
    dates.sort();
    return { from: dates[0]!, to: dates[dates.length - 1]! };
  }
  for (const row of preamble) {
    const m = YEAR_MONTH.exec(row.join(' ').normalize('NFKC'));
    if (!m) continue;
    const [y, mo] = [+m[1]!, +m[2]!];
    if (!isCalendarDate(y, mo, 1)) continue;
    let last = 31;
    while (!isCalendarDate(y, mo, last)) last--;
    const month = `${y}-${String(mo).padStart(2, '0')}`;
    return { from: `${month}-01`, to: `${month}-${last}` };
  }
  return null;
}
