import { addMonths, type CalendarDate, daysInMonth } from '@nestegg/domain';

/** A calendar month with its first and last day (`YYYY-MM-DD`). */
export interface MonthSpan {
  year: number;
  month: number;
  first: CalendarDate;
  last: CalendarDate;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** The month `month` (1..12) of `year`. */
export function monthSpan(year: number, month: number): MonthSpan {
  const prefix = `${String(year).padStart(4, '0')}-${pad(month)}`;
  return { year, month, first: `${prefix}-01`, last: `${prefix}-${pad(daysInMonth(year, month))}` };
}

/** The month a date falls in. */
export function monthOfDate(date: CalendarDate): MonthSpan {
  return monthSpan(Number(date.slice(0, 4)), Number(date.slice(5, 7)));
}

/** The last `count` months up to and including the one holding `today`, oldest first. */
export function monthsEndingAt(today: CalendarDate, count: number): MonthSpan[] {
  const firstOfCurrent = `${today.slice(0, 7)}-01`;
  return Array.from({ length: count }, (_, index) => monthOfDate(addMonths(firstOfCurrent, index - count + 1)));
}
