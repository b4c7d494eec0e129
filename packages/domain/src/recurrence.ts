/**
 * When a recurring transaction falls due: pure calendar arithmetic on `YYYY-MM-DD` dates (no time zone,
 * no I/O), shared by the api (the `nextDate` it shows) and the billing worker (the entries it posts), so
 * both always agree.
 */

/** A calendar date `YYYY-MM-DD` (years 0001–9999). */
export type CalendarDate = string;

export type RecurrenceFrequency = 'MONTHLY' | 'WEEKLY' | 'YEARLY';

/** The schedule of a recurring transaction, as stored. */
export interface RecurrenceRule {
  frequency: RecurrenceFrequency;
  /** MONTHLY and YEARLY: 1..31, clamped to the last day of shorter months. */
  dayOfMonth: number | null;
  /** WEEKLY: ISO weekday, 1 = Monday … 7 = Sunday. */
  dayOfWeek: number | null;
  /** YEARLY: 1..12. */
  monthOfYear: number | null;
  startDate: CalendarDate;
  /** Inclusive; null = no end. */
  endDate: CalendarDate | null;
}

export type ScheduleFields = Pick<RecurrenceRule, 'dayOfMonth' | 'dayOfWeek' | 'monthOfYear'>;

const MS_PER_DAY = 86_400_000;
const LAST_YEAR = 9999;

interface Ymd {
  year: number;
  month: number;
  day: number;
}

function parse(date: CalendarDate): Ymd {
  return { year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), day: Number(date.slice(8, 10)) };
}

function format({ year, month, day }: Ymd): CalendarDate {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Days since 1970-01-01 (`setUTCFullYear`, because `Date.UTC` maps years 0–99 to 1900–1999). */
function epochDay({ year, month, day }: Ymd): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return Math.round(date.getTime() / MS_PER_DAY);
}

function fromEpochDay(days: number): Ymd {
  const date = new Date(days * MS_PER_DAY);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** `date` moved by `days` (negative: back). */
export function addDays(date: CalendarDate, days: number): CalendarDate {
  return format(fromEpochDay(epochDay(parse(date)) + days));
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: CalendarDate, to: CalendarDate): number {
  return epochDay(parse(to)) - epochDay(parse(from));
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** ISO weekday of a date: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: CalendarDate): number {
  // 1970-01-01 was a Thursday (4).
  return ((((epochDay(parse(date)) + 3) % 7) + 7) % 7) + 1;
}

const later = (a: CalendarDate, b: CalendarDate) => (a > b ? a : b);
const earlier = (a: CalendarDate, b: CalendarDate) => (a < b ? a : b);

/**
 * The schedule fields a frequency uses, the others null; a missing one is taken from `startDate` (a
 * monthly rule without a day repeats on the start date's day, and so on).
 */
export function completeSchedule(
  frequency: RecurrenceFrequency,
  startDate: CalendarDate,
  fields: Partial<ScheduleFields>,
): ScheduleFields {
  const start = parse(startDate);
  const none: ScheduleFields = { dayOfMonth: null, dayOfWeek: null, monthOfYear: null };
  switch (frequency) {
    case 'MONTHLY':
      return { ...none, dayOfMonth: fields.dayOfMonth ?? start.day };
    case 'WEEKLY':
      return { ...none, dayOfWeek: fields.dayOfWeek ?? isoWeekday(startDate) };
    case 'YEARLY':
      return { ...none, monthOfYear: fields.monthOfYear ?? start.month, dayOfMonth: fields.dayOfMonth ?? start.day };
  }
}

/** The day of `month` a rule on day `dayOfMonth` falls on: clamped to the month's last day. */
function clampedDay(year: number, month: number, dayOfMonth: number): Ymd {
  return { year, month, day: Math.min(dayOfMonth, daysInMonth(year, month)) };
}

/** The first date on or after `from` that the schedule names, ignoring start and end; null past year 9999. */
function scheduledOnOrAfter(rule: RecurrenceRule, from: CalendarDate): CalendarDate | null {
  const fields = completeSchedule(rule.frequency, rule.startDate, rule);
  const { year, month } = parse(from);
  let candidate: Ymd;
  if (rule.frequency === 'WEEKLY') {
    const ahead = (fields.dayOfWeek! - isoWeekday(from) + 7) % 7;
    candidate = fromEpochDay(epochDay(parse(from)) + ahead);
  } else if (rule.frequency === 'MONTHLY') {
    candidate = clampedDay(year, month, fields.dayOfMonth!);
    if (format(candidate) < from) {
      candidate =
        month === 12 ? clampedDay(year + 1, 1, fields.dayOfMonth!) : clampedDay(year, month + 1, fields.dayOfMonth!);
    }
  } else {
    candidate = clampedDay(year, fields.monthOfYear!, fields.dayOfMonth!);
    if (format(candidate) < from) candidate = clampedDay(year + 1, fields.monthOfYear!, fields.dayOfMonth!);
  }
  return candidate.year > LAST_YEAR ? null : format(candidate);
}

/** The first occurrence on or after `from` (and on or after the start, on or before the end), or null. */
export function nextOccurrence(rule: RecurrenceRule, from: CalendarDate): CalendarDate | null {
  const next = scheduledOnOrAfter(rule, later(from, rule.startDate));
  if (next === null || (rule.endDate !== null && next > rule.endDate)) return null;
  return next;
}

/**
 * Every occurrence between `from` and `to` (both inclusive) within the rule's start and end, oldest
 * first. The caller bounds the range: a weekly rule yields about one date per seven days of it.
 */
export function occurrencesBetween(rule: RecurrenceRule, from: CalendarDate, to: CalendarDate): CalendarDate[] {
  const last = rule.endDate === null ? to : earlier(to, rule.endDate);
  const dates: CalendarDate[] = [];
  for (let date = nextOccurrence(rule, from); date !== null && date <= last; ) {
    dates.push(date);
    date = date === '9999-12-31' ? null : nextOccurrence(rule, addDays(date, 1));
  }
  return dates;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date of `instant` in an IANA time zone (the ledger's "today"). */
export function localDate(instant: Date, timeZone: string): CalendarDate {
  let formatter = dateFormats.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormats.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(instant).map((part) => [part.type, part.value]));
  return `${parts.year!.padStart(4, '0')}-${parts.month}-${parts.day}`;
}
