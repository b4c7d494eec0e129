import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMonths, dateIn, startOfWeek, trailingPeriods } from './periods.js';

describe('calendar dates', () => {
  it('takes the date of an instant in the given time zone', () => {
    const instant = new Date('2026-03-01T15:30:00Z');
    expect(dateIn('Asia/Seoul', instant)).toBe('2026-03-02');
    expect(dateIn('UTC', instant)).toBe('2026-03-01');
    expect(dateIn('America/Los_Angeles', instant)).toBe('2026-03-01');
  });

  it('takes the date the calendar of the time zone shows, for any instant and zone', () => {
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
          expect(dateIn(zone, instant)).toBe(`${parts.year}-${parts.month}-${parts.day}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('adds months, clamping to shorter months', () => {
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonths('2026-03-15', -3)).toBe('2025-12-15');
    expect(addMonths('2026-05-31', 12)).toBe('2027-05-31');
  });

  it('starts weeks on Monday', () => {
    expect(startOfWeek('2026-03-16')).toBe('2026-03-16'); // a Monday
    expect(startOfWeek('2026-03-22')).toBe('2026-03-16'); // Sunday
    expect(startOfWeek('2026-03-18')).toBe('2026-03-16');
    expect(startOfWeek('1969-12-31')).toBe('1969-12-29');
  });
});

describe('trailing periods', () => {
  it('gives weeks from Monday, oldest first, the current one ending today', () => {
    expect(trailingPeriods('WEEK', 3, '2026-03-18')).toEqual([
      { start: '2026-03-02', end: '2026-03-08' },
      { start: '2026-03-09', end: '2026-03-15' },
      { start: '2026-03-16', end: '2026-03-18' },
    ]);
  });

  it('gives calendar months across a year end', () => {
    expect(trailingPeriods('MONTH', 3, '2026-01-10')).toEqual([
      { start: '2025-11-01', end: '2025-11-30' },
      { start: '2025-12-01', end: '2025-12-31' },
      { start: '2026-01-01', end: '2026-01-10' },
    ]);
  });
});
