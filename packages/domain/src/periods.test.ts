import { describe, expect, it } from 'vitest';
import { trailingPeriods } from './periods.js';

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

  it('ends a past February on its last day, leap or not', () => {
    expect(trailingPeriods('MONTH', 2, '2028-03-05')[0]).toEqual({ start: '2028-02-01', end: '2028-02-29' });
    expect(trailingPeriods('MONTH', 2, '2026-03-31')[0]).toEqual({ start: '2026-02-01', end: '2026-02-28' });
  });
});
