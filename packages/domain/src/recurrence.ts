/**
 * When a recurring transaction falls due: pure calendar arithmetic on `YYYY-MM-DD` dates (no time zone,
 * no I/O), shared by the api (the `nextDate` it shows) and the billing worker (the entries it posts), so
 * both always agree. The dates and their arithmetic are the calendar's (`calendar.ts`).
 */
import {
  addDays,
  type CalendarDate,
  clampedDate,
  type DateParts,
  dateFromParts,
  datePartsOf,
  isoWeekday,
} from './calendar.js';

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

const LAST_YEAR = 9999;

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
  const start = datePartsOf(startDate);
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

/** The first date on or after `from` that the schedule names, ignoring start and end; null past year 9999. */
function scheduledOnOrAfter(rule: RecurrenceRule, from: CalendarDate): CalendarDate | null {
  const fields = completeSchedule(rule.frequency, rule.startDate, rule);
  const { year, month } = datePartsOf(from);
  let candidate: DateParts;
  if (rule.frequency === 'WEEKLY') {
    const ahead = (fields.dayOfWeek! - isoWeekday(from) + 7) % 7;
    candidate = datePartsOf(addDays(from, ahead));
  } else if (rule.frequency === 'MONTHLY') {
    candidate = clampedDate(year, month, fields.dayOfMonth!);
    if (dateFromParts(candidate) < from) {
      candidate =
        month === 12 ? clampedDate(year + 1, 1, fields.dayOfMonth!) : clampedDate(year, month + 1, fields.dayOfMonth!);
    }
  } else {
    candidate = clampedDate(year, fields.monthOfYear!, fields.dayOfMonth!);
    if (dateFromParts(candidate) < from) candidate = clampedDate(year + 1, fields.monthOfYear!, fields.dayOfMonth!);
  }
  return candidate.year > LAST_YEAR ? null : dateFromParts(candidate);
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
