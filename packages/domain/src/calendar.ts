/**
 * The one calendar of the api, the worker and the packages (decision L38): dates as `YYYY-MM-DD` strings,
 * the date an instant has in a time zone, day and month arithmetic, weeks from Monday and month spans.
 * Arithmetic runs on day numbers, so no time zone or daylight-saving shift can move a day; a time zone
 * matters only when an instant becomes a date (`dateIn`).
 */

/** A calendar date, `YYYY-MM-DD` (years 0001–9999, as PostgreSQL and the contract take them). */
export type CalendarDate = string;

export interface DateParts {
  year: number;
  /** 1..12 */
  month: number;
  /** 1..31 */
  day: number;
}

/** A calendar month with its first and last day and its number of days, as date-range statements take it. */
export interface MonthSpan {
  year: number;
  month: number;
  first: CalendarDate;
  last: CalendarDate;
  days: number;
}

const MS_PER_DAY = 86_400_000;

export function datePartsOf(date: CalendarDate): DateParts {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return { year, month, day };
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

export function dateFromParts({ year, month, day }: DateParts): CalendarDate {
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

// ---------------------------------------------------------------------------------------------------------
// The date of an instant in a time zone.
// ---------------------------------------------------------------------------------------------------------

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** What the en-US formatter writes for a year of four digits: `MM/DD/YYYY`. */
const US_DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/;

/**
 * The calendar date of `instant` in `timeZone` (an IANA name): the ledger's "today". `format` and a fixed
 * pattern cost a fraction of `formatToParts` (net worth takes a date per wallet on every request); a year of
 * other than four digits takes the parts.
 */
export function dateIn(timeZone: string, instant: Date): CalendarDate {
  const formatter = formatterFor(timeZone);
  const us = US_DATE.exec(formatter.format(instant));
  if (us) return `${us[3]}-${us[1]}-${us[2]}`;
  const parts = Object.fromEntries(formatter.formatToParts(instant).map((part) => [part.type, Number(part.value)]));
  return dateFromParts({ year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0 });
}

// ---------------------------------------------------------------------------------------------------------
// Days and weeks.
// ---------------------------------------------------------------------------------------------------------

/** Days since 1970-01-01 (`setUTCFullYear`, because `Date.UTC` maps years 0–99 to 1900–1999). */
function epochDayOf({ year, month, day }: DateParts): number {
  const midnight = new Date(0);
  midnight.setUTCFullYear(year, month - 1, day);
  return Math.round(midnight.getTime() / MS_PER_DAY);
}

function datePartsOfEpochDay(epochDay: number): DateParts {
  const midnight = new Date(epochDay * MS_PER_DAY);
  return { year: midnight.getUTCFullYear(), month: midnight.getUTCMonth() + 1, day: midnight.getUTCDate() };
}

/** `date` moved by `days` (negative: back). */
export function addDays(date: CalendarDate, days: number): CalendarDate {
  return dateFromParts(datePartsOfEpochDay(epochDayOf(datePartsOf(date)) + days));
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: CalendarDate, to: CalendarDate): number {
  return epochDayOf(datePartsOf(to)) - epochDayOf(datePartsOf(from));
}

/** ISO weekday of a date: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: CalendarDate): number {
  // 1970-01-01 was a Thursday (4).
  return ((((epochDayOf(datePartsOf(date)) + 3) % 7) + 7) % 7) + 1;
}

/** The Monday of the date's week. */
export function startOfWeek(date: CalendarDate): CalendarDate {
  return addDays(date, 1 - isoWeekday(date));
}

// ---------------------------------------------------------------------------------------------------------
// Months.
// ---------------------------------------------------------------------------------------------------------

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Day `day` of the month, or the month's last day when the month is shorter (the 31st of February is the 28th/29th). */
export function clampedDate(year: number, month: number, day: number): DateParts {
  return { year, month, day: Math.min(day, daysInMonth(year, month)) };
}

/** The same day `months` later (negative: earlier), clamped to the last day of a shorter month. */
export function addMonths(date: CalendarDate, months: number): CalendarDate {
  const { year, month, day } = datePartsOf(date);
  const monthIndex = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(monthIndex / 12);
  return dateFromParts(clampedDate(targetYear, monthIndex - targetYear * 12 + 1, day));
}

export function startOfMonth(date: CalendarDate): CalendarDate {
  return dateFromParts({ ...datePartsOf(date), day: 1 });
}

/** The month `month` (1..12) of `year`. */
export function monthSpan(year: number, month: number): MonthSpan {
  const days = daysInMonth(year, month);
  return {
    year,
    month,
    first: dateFromParts({ year, month, day: 1 }),
    last: dateFromParts({ year, month, day: days }),
    days,
  };
}

/** The month a date falls in. */
export function monthOf(date: CalendarDate): MonthSpan {
  const { year, month } = datePartsOf(date);
  return monthSpan(year, month);
}

/** The last `count` months up to and including the one holding `date`, oldest first. */
export function monthsEndingAt(date: CalendarDate, count: number): MonthSpan[] {
  const current = startOfMonth(date);
  return Array.from({ length: count }, (_, index) => monthOf(addMonths(current, index - count + 1)));
}
