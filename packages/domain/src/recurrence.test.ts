import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, type CalendarDate, daysBetween, daysInMonth, isoWeekday } from './calendar.js';
import { completeSchedule, nextOccurrence, occurrencesBetween, type RecurrenceRule } from './recurrence.js';

const monthly = (dayOfMonth: number, startDate = '2000-01-01', endDate: string | null = null): RecurrenceRule => ({
  frequency: 'MONTHLY',
  dayOfMonth,
  dayOfWeek: null,
  monthOfYear: null,
  startDate,
  endDate,
});
const weekly = (dayOfWeek: number, startDate = '2000-01-01', endDate: string | null = null): RecurrenceRule => ({
  frequency: 'WEEKLY',
  dayOfMonth: null,
  dayOfWeek,
  monthOfYear: null,
  startDate,
  endDate,
});
const yearly = (
  monthOfYear: number,
  dayOfMonth: number,
  startDate = '2000-01-01',
  endDate: string | null = null,
): RecurrenceRule => ({ frequency: 'YEARLY', dayOfMonth, dayOfWeek: null, monthOfYear, startDate, endDate });

describe('completing a schedule', () => {
  it('keeps the fields the frequency uses and clears the others', () => {
    expect(completeSchedule('MONTHLY', '2026-01-15', { dayOfMonth: 31, dayOfWeek: 3, monthOfYear: 5 })).toEqual({
      dayOfMonth: 31,
      dayOfWeek: null,
      monthOfYear: null,
    });
    expect(completeSchedule('WEEKLY', '2026-01-15', { dayOfMonth: 31, dayOfWeek: 3 })).toEqual({
      dayOfMonth: null,
      dayOfWeek: 3,
      monthOfYear: null,
    });
  });

  it('takes missing fields from the start date', () => {
    expect(completeSchedule('MONTHLY', '2026-01-15', {})).toEqual({
      dayOfMonth: 15,
      dayOfWeek: null,
      monthOfYear: null,
    });
    expect(completeSchedule('WEEKLY', '2026-01-15', {})).toEqual({ dayOfMonth: null, dayOfWeek: 4, monthOfYear: null });
    expect(completeSchedule('YEARLY', '2024-02-29', { monthOfYear: null })).toEqual({
      dayOfMonth: 29,
      dayOfWeek: null,
      monthOfYear: 2,
    });
  });
});

describe('occurrences', () => {
  it('monthly on the 31st clamps to each month’s last day, February included, leap or not', () => {
    expect(occurrencesBetween(monthly(31), '2024-01-01', '2024-06-30')).toEqual([
      '2024-01-31',
      '2024-02-29',
      '2024-03-31',
      '2024-04-30',
      '2024-05-31',
      '2024-06-30',
    ]);
    expect(occurrencesBetween(monthly(30), '2023-01-01', '2023-03-31')).toEqual([
      '2023-01-30',
      '2023-02-28',
      '2023-03-30',
    ]);
    expect(occurrencesBetween(monthly(29), '2100-02-01', '2100-03-31')).toEqual(['2100-02-28', '2100-03-29']);
  });

  it('monthly rolls over the year end', () => {
    expect(occurrencesBetween(monthly(15), '2025-11-20', '2026-02-10')).toEqual(['2025-12-15', '2026-01-15']);
  });

  it('weekly falls on its ISO weekday', () => {
    expect(occurrencesBetween(weekly(1), '2026-11-01', '2026-11-30')).toEqual([
      '2026-11-02',
      '2026-11-09',
      '2026-11-16',
      '2026-11-23',
      '2026-11-30',
    ]);
    expect(occurrencesBetween(weekly(7), '2026-11-22', '2026-11-22')).toEqual(['2026-11-22']);
  });

  it('yearly on 29 February falls on the 28th in common years', () => {
    expect(occurrencesBetween(yearly(2, 29), '2023-01-01', '2028-12-31')).toEqual([
      '2023-02-28',
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
      '2027-02-28',
      '2028-02-29',
    ]);
    expect(occurrencesBetween(yearly(12, 31), '2025-12-31', '2026-12-30')).toEqual(['2025-12-31']);
  });

  it('keeps within the start and the (inclusive) end', () => {
    const rule = monthly(10, '2026-02-11', '2026-06-10');
    expect(occurrencesBetween(rule, '2026-01-01', '2026-12-31')).toEqual([
      '2026-03-10',
      '2026-04-10',
      '2026-05-10',
      '2026-06-10',
    ]);
    expect(occurrencesBetween(rule, '2026-06-11', '2026-12-31')).toEqual([]);
    expect(occurrencesBetween(rule, '2026-05-01', '2026-04-01')).toEqual([]);
  });

  it('stops at year 9999', () => {
    expect(occurrencesBetween(yearly(1, 1), '9998-01-01', '9999-12-31')).toEqual(['9998-01-01', '9999-01-01']);
    expect(nextOccurrence(yearly(1, 1), '9999-01-02')).toBeNull();
    expect(nextOccurrence(monthly(1), '9999-12-02')).toBeNull();
    expect(occurrencesBetween(weekly(5), '9999-12-25', '9999-12-31')).toEqual(['9999-12-31']);
  });
});

describe('next occurrence', () => {
  it('is the first occurrence on or after the day, never before the start, null after the end', () => {
    expect(nextOccurrence(monthly(25), '2026-11-25')).toBe('2026-11-25');
    expect(nextOccurrence(monthly(25), '2026-11-26')).toBe('2026-12-25');
    expect(nextOccurrence(monthly(31, '2027-02-01'), '2026-11-26')).toBe('2027-02-28');
    expect(nextOccurrence(weekly(3, '2026-01-01', '2026-11-24'), '2026-11-22')).toBeNull();
    expect(nextOccurrence(weekly(3, '2026-01-01', '2026-11-25'), '2026-11-22')).toBe('2026-11-25');
  });
});

// -------------------------------------------------------------------------------------------------
// Properties: the fast paths agree with a day-by-day oracle on arbitrary rules and ranges.
// -------------------------------------------------------------------------------------------------

const dateArb = fc
  .date({ min: new Date('1899-01-01T00:00:00Z'), max: new Date('2201-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

const ruleArb: fc.Arbitrary<RecurrenceRule> = fc
  .record({
    frequency: fc.constantFrom('MONTHLY' as const, 'WEEKLY' as const, 'YEARLY' as const),
    dayOfMonth: fc.option(fc.integer({ min: 1, max: 31 })),
    dayOfWeek: fc.option(fc.integer({ min: 1, max: 7 })),
    monthOfYear: fc.option(fc.integer({ min: 1, max: 12 })),
    startDate: dateArb,
    endAfter: fc.option(fc.integer({ min: 0, max: 3000 })),
  })
  .map(({ endAfter, ...rule }) => ({
    ...rule,
    endDate: endAfter === null ? null : addDays(rule.startDate, endAfter),
  }));

/** The naive definition: does the rule fall on this day? */
function fallsOn(rule: RecurrenceRule, date: CalendarDate): boolean {
  if (date < rule.startDate || (rule.endDate !== null && date > rule.endDate)) return false;
  const fields = completeSchedule(rule.frequency, rule.startDate, rule);
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const clamped = (dayOfMonth: number) => Math.min(dayOfMonth, daysInMonth(year, month));
  if (rule.frequency === 'WEEKLY') return isoWeekday(date) === fields.dayOfWeek;
  if (rule.frequency === 'MONTHLY') return day === clamped(fields.dayOfMonth!);
  return month === fields.monthOfYear && day === clamped(fields.dayOfMonth!);
}

function oracle(rule: RecurrenceRule, from: CalendarDate, to: CalendarDate): CalendarDate[] {
  const dates: CalendarDate[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) if (fallsOn(rule, date)) dates.push(date);
  return dates;
}

const rangeArb = fc.tuple(ruleArb, fc.integer({ min: -400, max: 800 }), fc.integer({ min: 0, max: 900 }));

describe('properties', () => {
  it('occurrences equal the day-by-day oracle (hence sorted, unique, within range and rule)', () => {
    fc.assert(
      fc.property(rangeArb, ([rule, offset, span]) => {
        const from = addDays(rule.startDate, offset);
        const to = addDays(from, span);
        const dates = occurrencesBetween(rule, from, to);
        expect(dates).toEqual(oracle(rule, from, to));
        expect([...new Set(dates)].sort()).toEqual(dates);
      }),
      { numRuns: 300 },
    );
  });

  it('the next occurrence is the first the oracle finds, or null when the rule ended', () => {
    fc.assert(
      fc.property(rangeArb, ([rule, offset]) => {
        const from = addDays(rule.startDate, offset);
        const next = nextOccurrence(rule, from);
        // Every rule falls at least once in any 366 days after its start.
        const firstDays = oracle(rule, [from, rule.startDate].sort()[1]!, addDays(from, 800));
        expect(next).toBe(firstDays[0] ?? null);
        if (next === null) expect(rule.endDate).not.toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('monthly and yearly rules fall exactly once per month / year; weekly every seven days', () => {
    fc.assert(
      fc.property(ruleArb, (open) => {
        const rule = { ...open, endDate: null };
        const from = rule.startDate;
        const dates = occurrencesBetween(rule, from, addDays(from, 3 * 366));
        if (rule.frequency === 'WEEKLY') {
          for (let i = 1; i < dates.length; i += 1) expect(daysBetween(dates[i - 1]!, dates[i]!)).toBe(7);
        } else {
          const unit = (date: string) => (rule.frequency === 'MONTHLY' ? date.slice(0, 7) : date.slice(0, 4));
          expect(new Set(dates.map(unit)).size).toBe(dates.length);
        }
      }),
      { numRuns: 200 },
    );
  });
});
