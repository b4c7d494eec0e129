/**
 * The report periods of the net-worth trend: weeks starting Monday and calendar months, their dates from the
 * calendar (`calendar.ts`).
 */
import { addDays, addMonths, type CalendarDate, startOfMonth, startOfWeek } from './calendar.js';

export type PeriodUnit = 'WEEK' | 'MONTH';

/** A report period: its first day and the day its value is taken on (its last day, or today for the current one). */
export interface Period {
  start: CalendarDate;
  end: CalendarDate;
}

/**
 * The last `count` periods up to and including the one holding `today`, oldest first. Each ends on its
 * last day, except the current one, which ends today.
 */
export function trailingPeriods(unit: PeriodUnit, count: number, today: CalendarDate): Period[] {
  const current = unit === 'WEEK' ? startOfWeek(today) : startOfMonth(today);
  const shift = (date: CalendarDate, n: number) => (unit === 'WEEK' ? addDays(date, 7 * n) : addMonths(date, n));
  const periods: Period[] = [];
  for (let back = count - 1; back >= 0; back -= 1) {
    const start = shift(current, -back);
    const end = back === 0 ? today : addDays(shift(start, 1), -1);
    periods.push({ start, end });
  }
  return periods;
}
