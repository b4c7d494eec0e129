import { addDays, type DateParts, dateFromParts, datePartsOf, daysInMonth } from '@nestegg/domain';
import type { RegexHit, Scratch } from './scratch';

/** Clock parts as written in the text; any of them may be missing. */
export interface WrittenDateTime {
  year?: number;
  month?: number;
  day?: number;
  hour?: number;
  minute?: number;
  /** Where the date or time was written (the first one read), for the merchant's position rule. */
  span?: { start: number; end: number };
}

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Hours and minutes; seconds, when printed (2026.09.30 19:10:30), are read and dropped. */
const HM = String.raw`(?<hour>\d{1,2}):(?<minute>\d{2})(?::\d{2})?(?![\d:])`;

/** Date and time together, one pattern per written form. */
const DATE_TIME_FORMATS: readonly RegExp[] = [
  new RegExp(String.raw`(?<year>20\d{2})[./-](?<month>\d{1,2})[./-](?<day>\d{1,2})\.?\s*${HM}`), // 2025-02-01 23:50
  new RegExp(String.raw`(?<![\d/])(?<month>\d{1,2})/(?<day>\d{1,2})\s*${HM}`), // 04/24 13:45, 06/07\n09:22
  new RegExp(String.raw`(?<month>\d{1,2})월\s?(?<day>\d{1,2})일\s*${HM}`), // 03월13일 19:47, 04월05일12:47
  new RegExp(String.raw`(?<![\d.])(?<month>\d{2})\.(?<day>\d{2})\s+${HM}`), // 06.27 12:47
];

/** A date without a clock time: read so that it is not taken for a merchant; it yields no instant. */
const DATE_ONLY_FORMATS: readonly RegExp[] = [
  /(?<year>\d{4})년\s?(?<month>\d{1,2})월\s?(?<day>\d{1,2})일/g, // 2010년05월11일
  /(?<month>\d{1,2})월\s?(?<day>\d{1,2})일/g, // 01월28일
  /(?<![\d/])(?<month>\d{1,2})\/(?<day>\d{1,2})(?:\/(?<year>\d{4}))?(?![\d/])/g, // 08/23, 08/26/2026
  /(?<monthName>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? (?<day>\d{1,2}), (?<year>\d{4})/g, // February 21, 2025
];

const TIME_ONLY = new RegExp(String.raw`(?<![\d:])${HM}`);

/** Reads (and consumes) the approval date and time; returns what was written. */
export function takeWrittenDateTime(scratch: Scratch): WrittenDateTime {
  for (const format of DATE_TIME_FORMATS) {
    const hit = scratch.take(format);
    if (hit) {
      takeDateOnlyMentions(scratch);
      return { ...toNumbers(hit.groups), span: spanOf(hit) };
    }
  }
  const datesOnly = takeDateOnlyMentions(scratch);
  const first = datesOnly[0];
  if (first) return { span: spanOf(first) };
  const time = scratch.take(TIME_ONLY);
  return time ? { ...toNumbers(time.groups), span: spanOf(time) } : {};
}

function spanOf(hit: RegexHit): { start: number; end: number } {
  return { start: hit.start, end: hit.end };
}

/** Every date written without a clock time, in text order. */
function takeDateOnlyMentions(scratch: Scratch): RegexHit[] {
  return DATE_ONLY_FORMATS.flatMap((format) => scratch.takeAll(format)).sort((left, right) => left.start - right.start);
}

function toNumbers(groups: Record<string, string | undefined>): WrittenDateTime {
  const parts: WrittenDateTime = {};
  for (const key of ['year', 'month', 'day', 'hour', 'minute'] as const) {
    const value = groups[key];
    if (value !== undefined) parts[key] = Number(value);
  }
  const monthName = groups.monthName?.slice(0, 3).toLowerCase();
  if (monthName) parts.month = MONTH_NAMES.indexOf(monthName) + 1;
  return parts;
}

/** A device clock may run a little ahead of the issuer's; a time this far after receipt still counts as "before". */
const CLOCK_SKEW_MS = 60 * 60 * 1000;

/**
 * The instant of the written clock time in `timeZone`. Without a year, the year that puts it nearest
 * before `receivedAt` (a "12/31 23:59" text received on 1 January is last year's). Without a date, the
 * nearest such day. Null when no time is written or a part is out of range.
 */
export function resolveOccurredAt(written: WrittenDateTime, receivedAt: Date, timeZone: string): string | null {
  const { hour, minute } = written;
  if (hour === undefined || minute === undefined || hour > 23 || minute > 59) return null;
  const received = zonedParts(receivedAt.getTime(), timeZone);
  const latestAllowed = receivedAt.getTime() + CLOCK_SKEW_MS;
  const candidates = candidateDates(written, received).flatMap((date) => {
    if (!isRealDate(date.year, date.month, date.day)) return [];
    return [zonedToEpoch({ ...date, hour, minute }, timeZone)];
  });
  const before = candidates.filter((epoch) => epoch <= latestAllowed);
  if (before.length === 0) return null;
  return new Date(Math.max(...before)).toISOString();
}

function candidateDates(written: WrittenDateTime, received: ZonedParts): DateParts[] {
  const { year, month, day } = written;
  if (month === undefined || day === undefined) {
    return [-1, 0].map((offset) => shiftDays(received, offset));
  }
  if (year !== undefined) return [{ year, month, day }];
  // Back four years so that 02/29 finds its leap year; one ahead for a clock that runs behind at New Year.
  return [-4, -3, -2, -1, 0, 1].map((offset) => ({ year: received.year + offset, month, day }));
}

function shiftDays(date: DateParts, offset: number): DateParts {
  return datePartsOf(addDays(dateFromParts(date), offset));
}

function isRealDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

interface ZonedParts extends DateParts {
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function zonedParts(epoch: number, timeZone: string): ZonedParts {
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(new Date(epoch))
      .map((part) => [part.type, Number(part.value)]),
  );
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
  };
}

function offsetAt(epoch: number, timeZone: string): number {
  const local = zonedParts(epoch, timeZone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  return asUtc - Math.floor(epoch / 60_000) * 60_000;
}

/** Wall-clock time in `timeZone` → epoch ms (re-checks the offset once, for DST transitions). */
function zonedToEpoch(parts: ZonedParts, timeZone: string): number {
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute);
  const firstGuess = wall - offsetAt(wall, timeZone);
  return wall - offsetAt(firstGuess, timeZone);
}
