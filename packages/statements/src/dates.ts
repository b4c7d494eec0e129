import type { DateOrder } from './types.js';

/**
 * A date cell read without deciding its order yet:
 * - `full`: year, month, day known (`2026.05.14`, `2026-05-14 12:31`, `20260514`, `2026년 5월 14일`, `14 May 2026`);
 * - `triple`: three numbers whose order the file's date order decides (`01/02/2026`, `26/05/14`);
 * - `monthDay`: month and day known, no year (`05월14일`);
 * - `pair`: two numbers, no year (`05/14`): month/day, or day/month under DMY.
 */
export type DateShape =
  | { kind: 'full'; y: number; m: number; d: number; time: string | null }
  | { kind: 'triple'; n: [number, number, number]; yearLast4: boolean; time: string | null }
  | { kind: 'monthDay'; m: number; d: number; time: string | null }
  | { kind: 'pair'; n: [number, number]; time: string | null };

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const WEEKDAY =
  /\s*[([]\s*(월|화|수|목|금|토|일|mon|tue|wed|thu|fri|sat|sun)[a-z]*\s*[)\]]|\s*(월|화|수|목|금|토|일)요일/gi;
const Y_FIRST = /^(\d{4})\s*(?:[-./]|년)\s*(\d{1,2})\s*(?:[-./]|월)\s*(\d{1,2})\s*일?\.?(?:(?:\s+|T)(.*))?$/i;
const COMPACT = /^(\d{4})(\d{2})(\d{2})(?:\s*T?(\d{4}|\d{6}))?$/;
const TRIPLE = /^(\d{1,2})\s*[-./]\s*(\d{1,2})\s*[-./]\s*(\d{4}|\d{2})\.?(?:\s+(.*))?$/;
const MONTH_DAY = /^(\d{1,2})\s*월\s*(\d{1,2})\s*일(?:\s+(.*))?$/;
const PAIR = /^(\d{1,2})\s*[-./]\s*(\d{1,2})\.?(?:\s+(.*))?$/;
const D_MON_Y = /^(\d{1,2})[\s-]*([a-z]{3})[a-z]*\.?[\s,-]*(\d{4}|\d{2})(?:\s+(.*))?$/i;
const MON_D_Y = /^([a-z]{3})[a-z]*\.?\s*(\d{1,2}),?\s+(\d{4})(?:\s+(.*))?$/i;
const TIME =
  /^(오전|오후|am|pm)?\s*(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?\s*(오전|오후|am|pm)?\s*(?:z|[+-]\d{2}(?::?\d{2})?)?$/i;
const COMPACT_TIME = /^(\d{2})(\d{2})(\d{2})?$/;

/** A cell of the date column as a shape, or null when it is no date we read. */
export function dateShape(cell: string): DateShape | null {
  const text = cell.normalize('NFKC').replace(WEEKDAY, '').trim();
  if (text === '') return null;
  let m = Y_FIRST.exec(text);
  if (m) return withTime({ kind: 'full', y: +m[1]!, m: +m[2]!, d: +m[3]!, time: null }, m[4]);
  m = COMPACT.exec(text);
  if (m) return withTime({ kind: 'full', y: +m[1]!, m: +m[2]!, d: +m[3]!, time: null }, m[4]);
  m = TRIPLE.exec(text);
  if (m) {
    const shape: DateShape = { kind: 'triple', n: [+m[1]!, +m[2]!, +m[3]!], yearLast4: m[3]!.length === 4, time: null };
    return withTime(shape, m[4]);
  }
  m = MONTH_DAY.exec(text);
  if (m) return withTime({ kind: 'monthDay', m: +m[1]!, d: +m[2]!, time: null }, m[3]);
  m = D_MON_Y.exec(text);
  if (m && MONTHS[m[2]!.toLowerCase()]) {
    return withTime({ kind: 'full', y: fullYear(m[3]!), m: MONTHS[m[2]!.toLowerCase()]!, d: +m[1]!, time: null }, m[4]);
  }
  m = MON_D_Y.exec(text);
  if (m && MONTHS[m[1]!.toLowerCase()]) {
    return withTime({ kind: 'full', y: +m[3]!, m: MONTHS[m[1]!.toLowerCase()]!, d: +m[2]!, time: null }, m[4]);
  }
  m = PAIR.exec(text);
  if (m) return withTime({ kind: 'pair', n: [+m[1]!, +m[2]!], time: null }, m[3]);
  return null;
}

function withTime<T extends DateShape>(shape: T, rest: string | undefined): T | null {
  if (rest === undefined || rest.trim() === '') return shape;
  const time = parseTime(rest);
  return time ? { ...shape, time } : null;
}

/** `12:31`, `12:31:05`, `오후 1:05`, `1:05 PM`, `T12:31:05+09:00`, `123105` as HH:MM or HH:MM:SS; null otherwise. */
export function parseTime(cell: string): string | null {
  const text = cell.normalize('NFKC').trim().replace(/^t/i, '');
  let h: number;
  let min: number;
  let s: string | undefined;
  const m = TIME.exec(text);
  if (m) {
    h = +m[2]!;
    min = +m[3]!;
    s = m[4];
    const half = (m[1] ?? m[5])?.toLowerCase();
    if (half === '오후' || half === 'pm') {
      if (h < 12) h += 12;
    } else if ((half === '오전' || half === 'am') && h === 12) h = 0;
  } else {
    const c = COMPACT_TIME.exec(text);
    if (!c) return null;
    h = +c[1]!;
    min = +c[2]!;
    s = c[3];
  }
  if (h > 23 || min > 59 || (s !== undefined && +s > 59)) return null;
  return `${pad(h)}:${pad(min)}${s === undefined ? '' : `:${s}`}`;
}

function fullYear(y: string): number {
  const n = +y;
  return y.length === 4 ? n : n < 70 ? 2000 + n : 1900 + n;
}

export type DateResult = { date: string; time: string | null } | { error: string };

/**
 * A shape as YYYY-MM-DD under a date order. Dates without a year take the latest year that puts them on or before
 * `anchor` (YYYY-MM-DD: the statement period's end, else the day the file was taken in).
 */
export function resolveDate(shape: DateShape, order: DateOrder, cell: string, anchor: string | null): DateResult {
  let y: number;
  let mo: number;
  let d: number;
  switch (shape.kind) {
    case 'full':
      [y, mo, d] = [shape.y, shape.m, shape.d];
      break;
    case 'triple': {
      const [a, b, c] = shape.n;
      if (order === 'YMD') {
        if (shape.yearLast4)
          return { error: `the date "${cell}" ends with its year, which the date order YYYY-MM-DD cannot read` };
        [y, mo, d] = [fullYear(String(a).padStart(2, '0')), b, c];
      } else {
        const year = fullYear(shape.yearLast4 ? String(c) : String(c).padStart(2, '0'));
        [y, mo, d] = order === 'DMY' ? [year, b, a] : [year, a, b];
      }
      break;
    }
    case 'monthDay':
    case 'pair': {
      [mo, d] = shape.kind === 'monthDay' ? [shape.m, shape.d] : order === 'DMY' ? [shape.n[1], shape.n[0]] : shape.n;
      if (!anchor) {
        return { error: `the date "${cell}" has no year, and neither the file nor the upload says which year it is` };
      }
      const ay = +anchor.slice(0, 4);
      y = iso(ay, mo, d) <= anchor ? ay : ay - 1;
      break;
    }
  }
  if (!isCalendarDate(y, mo, d)) return { error: `the date "${cell}" is not a calendar date` };
  return { date: iso(y, mo, d), time: shape.time };
}

export function isCalendarDate(y: number, m: number, d: number): boolean {
  if (y < 1900 || y > 2999 || m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1]!;
}

function iso(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${pad(m)}-${pad(d)}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

const ORDERS: DateOrder[] = ['YMD', 'DMY', 'MDY'];

/** How many days a statement spans at most when the sort order cannot tell (a year and five weeks). */
const PLAUSIBLE_SPAN_DAYS = 400;

/** How many days after the statement's end (or the day it is taken in) a date may be: pending rows, time zones. */
const AFTER_END_DAYS = 7;

/**
 * The date order of a column, from the data: the orders under which every ambiguous date is a calendar date; of
 * several, the only one under which the dates are sorted (either way); of several still, the only one under which
 * they span at most 400 days; of several still, when `end` is known (the statement period's end, else the day the
 * file is taken in), the only one under which every date lies in the 400 days before it (a week after allowed):
 * `26.03.01` is 2026-03-01, not 2001-03-26. `dateOrder: null` when the data cannot tell, with the orders left as
 * candidates. Dates that no order reads (2026-05-14, 05월14일) say nothing: with only those the order is YMD.
 */
export function inferDateOrder(
  cells: readonly string[],
  end: string | null = null,
): { dateOrder: DateOrder | null; candidates: DateOrder[] } {
  const shapes: DateShape[] = [];
  for (const cell of cells) {
    const shape = dateShape(cell);
    if (shape && (shape.kind === 'triple' || shape.kind === 'pair')) shapes.push(shape);
  }
  if (shapes.length === 0) return { dateOrder: 'YMD', candidates: ['YMD'] };
  // A pair has no year: YMD and MDY read it alike (month first), so only YMD and DMY are told apart.
  const orders = shapes.every((s) => s.kind === 'pair') ? ORDERS.filter((o) => o !== 'MDY') : ORDERS;
  const anchor = '2000-12-31';
  const read = orders.map((order) => {
    const days: number[] = [];
    let failures = 0;
    for (const shape of shapes) {
      const r = resolveDate(shape, order, '', anchor);
      if ('error' in r) failures++;
      else days.push(Date.parse(r.date) / 86_400_000);
    }
    return { order, days, failures };
  });
  const fewest = Math.min(...read.map((r) => r.failures));
  if (fewest === shapes.length) return { dateOrder: null, candidates: [...orders] };
  let left = read.filter((r) => r.failures === fewest);
  const narrow = (keep: (r: (typeof left)[number]) => boolean) => {
    const kept = left.filter(keep);
    if (kept.length > 0) left = kept;
  };
  if (left.length > 1) narrow((r) => sorted(r.days));
  if (left.length > 1) narrow((r) => span(r.days) <= PLAUSIBLE_SPAN_DAYS);
  const last = end && /^\d{4}-\d{2}-\d{2}$/.test(end) ? Date.parse(end) / 86_400_000 : null;
  if (left.length > 1 && last !== null && !Number.isNaN(last)) {
    narrow((r) => r.days.every((d) => d <= last + AFTER_END_DAYS && d >= last - PLAUSIBLE_SPAN_DAYS));
  }
  if (left.length === 1) return { dateOrder: left[0]!.order, candidates: [left[0]!.order] };
  return { dateOrder: null, candidates: left.map((r) => r.order) };
}

function span(days: readonly number[]): number {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const d of days) {
    if (d < min) min = d;
    if (d > max) max = d;
  }
  return max - min;
}

function sorted(days: readonly number[]): boolean {
  let up = true;
  let down = true;
  for (let i = 1; i < days.length; i++) {
    if (days[i]! < days[i - 1]!) up = false;
    if (days[i]! > days[i - 1]!) down = false;
  }
  return up || down;
}
