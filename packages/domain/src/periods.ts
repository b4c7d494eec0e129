/**
 * Calendar dates as `YYYY-MM-DD` strings and the report periods built from them: weeks starting Monday and
 * calendar months. Arithmetic runs on UTC midnights, so no time zone or daylight-saving shift can move a day;
 * the time zone matters only when an instant becomes a date (`dateIn`).
 */

/** A calendar date, `YYYY-MM-DD`. */
export type IsoDate = string;

export type PeriodUnit = 'WEEK' | 'MONTH';

/** A report period: its first day and the day its value is taken on (its last day, or today for the current one). */
export interface Period {
  start: IsoDate;
  end: IsoDate;
}

const DAY_MS = 86_400_000;
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
 * The calendar date of `instant` in `timeZone` (an IANA name). `format` and a fixed pattern cost a fraction of
 * `formatToParts` (net worth takes a date per wallet on every request); a year of other than four digits takes
 * the parts.
 */
export function dateIn(timeZone: string, instant: Date): IsoDate {
  const formatter = formatterFor(timeZone);
  const us = US_DATE.exec(formatter.format(instant));
  if (us) return `${us[3]}-${us[1]}-${us[2]}`;
  const parts = Object.fromEntries(formatter.formatToParts(instant).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

function toEpochDay(date: IsoDate): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

function fromUtc(ms: number): IsoDate {
  return new Date(ms).toISOString().slice(0, 10);
}

function addDays(date: IsoDate, days: number): IsoDate {
  return fromUtc((toEpochDay(date) + days) * DAY_MS);
}

/** The same day `months` later, clamped to the last day of a shorter month (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(date: IsoDate, months: number): IsoDate {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const firstOfTarget = new Date(Date.UTC(year, month - 1 + months, 1));
  const lastDay = new Date(Date.UTC(firstOfTarget.getUTCFullYear(), firstOfTarget.getUTCMonth() + 1, 0)).getUTCDate();
  firstOfTarget.setUTCDate(Math.min(day, lastDay));
  return fromUtc(firstOfTarget.getTime());
}

/** The Monday of the date's week. */
export function startOfWeek(date: IsoDate): IsoDate {
  const epochDay = toEpochDay(date);
  // 1970-01-01 was a Thursday: (epochDay + 3) mod 7 is 0 on Mondays.
  const sinceMonday = (((epochDay + 3) % 7) + 7) % 7;
  return addDays(date, -sinceMonday);
}

export function startOfMonth(date: IsoDate): IsoDate {
  return `${date.slice(0, 7)}-01`;
}

/**
 * The last `count` periods up to and including the one holding `today`, oldest first. Each ends on its
 * last day, except the current one, which ends today.
 */
export function trailingPeriods(unit: PeriodUnit, count: number, today: IsoDate): Period[] {
  const current = unit === 'WEEK' ? startOfWeek(today) : startOfMonth(today);
  const shift = (date: IsoDate, n: number) => (unit === 'WEEK' ? addDays(date, 7 * n) : addMonths(date, n));
  const periods: Period[] = [];
  for (let back = count - 1; back >= 0; back -= 1) {
    const start = shift(current, -back);
    const end = back === 0 ? today : addDays(shift(start, 1), -1);
    periods.push({ start, end });
  }
  return periods;
}
