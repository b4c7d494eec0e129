import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  addMonths,
  clampedDate,
  dateFromParts,
  dateIn,
  datePartsOf,
  daysBetween,
  daysInMonth,
  isLeapYear,
  isoWeekday,
  monthOf,
  monthSpan,
  monthsEndingAt,
  startOfMonth,
  startOfWeek,
} from './calendar.js';

describe('the date of an instant in a time zone', () => {
  it('takes the date the zone’s calendar shows', () => {
    const instant = new Date('2026-03-01T15:30:00Z');
    expect(dateIn('Asia/Seoul', instant)).toBe('2026-03-02');
    expect(dateIn('UTC', instant)).toBe('2026-03-01');
    expect(dateIn('America/Los_Angeles', instant)).toBe('2026-03-01');
    const monthEnd = new Date('2026-03-31T16:30:00Z');
    expect(dateIn('UTC', monthEnd)).toBe('2026-03-31');
    expect(dateIn('Asia/Seoul', monthEnd)).toBe('2026-04-01');
    expect(dateIn('America/Los_Angeles', monthEnd)).toBe('2026-03-31');
  });

  it('turns the day at the zone’s midnight, ahead of UTC and behind it', () => {
    // Seoul is UTC+9: its midnight is 15:00 UTC the day before.
    expect(dateIn('Asia/Seoul', new Date('2026-12-31T14:59:59.999Z'))).toBe('2026-12-31');
    expect(dateIn('Asia/Seoul', new Date('2026-12-31T15:00:00Z'))).toBe('2027-01-01');
    // New York is UTC−5 in winter: its midnight is 05:00 UTC the same day.
    expect(dateIn('America/New_York', new Date('2027-01-01T04:59:59.999Z'))).toBe('2026-12-31');
    expect(dateIn('America/New_York', new Date('2027-01-01T05:00:00Z'))).toBe('2027-01-01');
    // Kiritimati (UTC+14) and Pago Pago (UTC−11) are two calendar days apart for eleven hours a day.
    const noonUtc = new Date('2026-06-15T12:00:00Z');
    expect(dateIn('Pacific/Kiritimati', noonUtc)).toBe('2026-06-16');
    expect(dateIn('Pacific/Pago_Pago', noonUtc)).toBe('2026-06-15');
    expect(dateIn('Pacific/Pago_Pago', new Date('2026-06-15T10:59:59Z'))).toBe('2026-06-14');
  });

  it('reads today in the app time zone at a month’s turn (the month-complete bonus)', () => {
    expect(dateIn('Asia/Seoul', new Date('2030-04-30T16:30:00Z'))).toBe('2030-05-01');
    expect(dateIn('UTC', new Date('2030-04-30T16:30:00Z'))).toBe('2030-04-30');
  });

  it('lands on 29 February in a leap year, ahead of UTC and behind it', () => {
    expect(dateIn('Asia/Seoul', new Date('2028-02-28T15:00:00Z'))).toBe('2028-02-29');
    expect(dateIn('America/Los_Angeles', new Date('2028-03-01T07:59:59Z'))).toBe('2028-02-29');
    expect(dateIn('America/Los_Angeles', new Date('2028-03-01T08:00:00Z'))).toBe('2028-03-01');
  });

  it('writes years of fewer than four digits as YYYY', () => {
    expect(dateIn('UTC', new Date('0999-12-31T12:00:00Z'))).toBe('0999-12-31');
    expect(dateIn('UTC', new Date('0050-06-01T00:00:00Z'))).toBe('0050-06-01');
  });

  it('agrees with the zone’s calendar for any instant and zone', () => {
    const zones = [
      'UTC',
      'Asia/Seoul',
      'America/Los_Angeles',
      'Australia/Lord_Howe',
      'Pacific/Kiritimati',
      'America/St_Johns',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.date({ min: new Date('0100-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        (zone, instant) => {
          const parts = Object.fromEntries(
            new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })
              .formatToParts(instant)
              .map((part) => [part.type, part.value]),
          );
          expect(dateIn(zone, instant)).toBe(`${parts.year?.padStart(4, '0')}-${parts.month}-${parts.day}`);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('days and weeks', () => {
  it('adds days across month, year and leap-day boundaries', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-02-29', 1)).toBe('2024-03-01');
    expect(addDays('2023-02-28', 1)).toBe('2023-03-01');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addDays('0001-01-01', 0)).toBe('0001-01-01');
    expect(addDays('0099-12-31', 1)).toBe('0100-01-01');
    expect(daysBetween('2024-01-01', '2025-01-01')).toBe(366);
    expect(daysBetween('2025-01-01', '2024-01-01')).toBe(-366);
  });

  it('gives ISO weekdays (Monday 1 … Sunday 7)', () => {
    expect(isoWeekday('2026-11-23')).toBe(1);
    expect(isoWeekday('2026-11-22')).toBe(7);
    expect(isoWeekday('1970-01-01')).toBe(4);
    expect(isoWeekday('1969-12-31')).toBe(3);
    expect(isoWeekday('2000-02-29')).toBe(2);
  });

  it('starts weeks on Monday', () => {
    expect(startOfWeek('2026-03-16')).toBe('2026-03-16'); // a Monday
    expect(startOfWeek('2026-03-22')).toBe('2026-03-16'); // Sunday
    expect(startOfWeek('2026-03-18')).toBe('2026-03-16');
    expect(startOfWeek('1969-12-31')).toBe('1969-12-29');
    expect(startOfWeek('2027-01-02')).toBe('2026-12-28'); // across a year end
  });

  it('adds days as the UTC calendar does, and counts them back', () => {
    fc.assert(
      fc.property(
        // Within years 1078..9821, where `toISOString` writes YYYY-MM-DD.
        fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('9000-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -300_000, max: 300_000 }),
        (instant, days) => {
          const date = instant.toISOString().slice(0, 10);
          const moved = new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
          expect(addDays(date, days)).toBe(moved);
          expect(daysBetween(date, addDays(date, days))).toBe(days);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('months', () => {
  it('knows month lengths and leap years (every 4th year, not centuries, but every 400th)', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((m) => daysInMonth(2023, m))).toEqual([
      31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
    ]);
    expect(daysInMonth(2024, 2)).toBe(29);
    expect(daysInMonth(1900, 2)).toBe(28);
    expect(daysInMonth(2000, 2)).toBe(29);
    expect(daysInMonth(2100, 2)).toBe(28);
    expect([1900, 2000, 2023, 2024, 2100, 2400].map(isLeapYear)).toEqual([false, true, false, true, false, true]);
  });

  it('adds months, clamping to shorter months', () => {
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonths('2026-03-15', -3)).toBe('2025-12-15');
    expect(addMonths('2026-05-31', 12)).toBe('2027-05-31');
    expect(addMonths('2024-02-29', 12)).toBe('2025-02-28');
    expect(addMonths('2024-02-29', 48)).toBe('2028-02-29');
    expect(addMonths('2026-03-31', -1)).toBe('2026-02-28');
    expect(addMonths('2026-12-31', -12)).toBe('2025-12-31');
    expect(addMonths('0050-01-31', 1)).toBe('0050-02-28');
  });

  it('clamps a day to the month’s last', () => {
    expect(clampedDate(2026, 2, 31)).toEqual({ year: 2026, month: 2, day: 28 });
    expect(clampedDate(2028, 2, 30)).toEqual({ year: 2028, month: 2, day: 29 });
    expect(clampedDate(2026, 4, 31)).toEqual({ year: 2026, month: 4, day: 30 });
    expect(clampedDate(2026, 5, 15)).toEqual({ year: 2026, month: 5, day: 15 });
  });

  it('gives a month’s first and last day and its length', () => {
    expect(startOfMonth('2026-03-18')).toBe('2026-03-01');
    expect(monthSpan(2026, 2)).toEqual({ year: 2026, month: 2, first: '2026-02-01', last: '2026-02-28', days: 28 });
    expect(monthSpan(2100, 2)).toMatchObject({ last: '2100-02-28', days: 28 });
    expect(monthSpan(2000, 2)).toMatchObject({ last: '2000-02-29', days: 29 });
    expect(monthSpan(2026, 12)).toMatchObject({ first: '2026-12-01', last: '2026-12-31' });
    expect(monthSpan(999, 4)).toMatchObject({ first: '0999-04-01', last: '0999-04-30' });
    expect(monthOf('2028-02-10')).toEqual({ year: 2028, month: 2, first: '2028-02-01', last: '2028-02-29', days: 29 });
    expect(monthOf('2030-05-01')).toMatchObject({ last: '2030-05-31', days: 31 });
    expect(monthOf('2030-06-30')).toMatchObject({ first: '2030-06-01', last: '2030-06-30', days: 30 });
  });

  it('gives the last months up to the current one, oldest first, across a year end', () => {
    expect(monthsEndingAt('2026-02-10', 4).map(({ first, last }) => [first, last])).toEqual([
      ['2025-11-01', '2025-11-30'],
      ['2025-12-01', '2025-12-31'],
      ['2026-01-01', '2026-01-31'],
      ['2026-02-01', '2026-02-28'],
    ]);
    expect(monthsEndingAt('2026-03-31', 1)).toEqual([monthSpan(2026, 3)]);
  });
});

describe('dates and their parts', () => {
  it('reads and writes YYYY-MM-DD', () => {
    expect(datePartsOf('2026-03-09')).toEqual({ year: 2026, month: 3, day: 9 });
    expect(datePartsOf('0001-01-01')).toEqual({ year: 1, month: 1, day: 1 });
    expect(dateFromParts({ year: 1, month: 1, day: 1 })).toBe('0001-01-01');
    expect(dateFromParts({ year: 2026, month: 12, day: 31 })).toBe('2026-12-31');
  });
});
