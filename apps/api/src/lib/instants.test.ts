import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoInstant } from './instants.js';

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/**
 * `timestamptz` text as PostgreSQL writes it: the fraction without trailing zeros, or none; an offset. From the
 * year 1000: `Date` reads `0099-…` as 1999 (its two-digit-year rule), which the rewrite does not copy.
 */
const postgresText = fc
  .record({
    instant: fc.date({
      min: new Date('1000-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    }),
    micros: fc.integer({ min: 0, max: 999_999 }),
    offset: fc.constantFrom('+00', '+00', '+09', '-05', '+05:30'),
  })
  .map(({ instant, micros, offset }) => {
    const iso = instant.toISOString();
    const fraction = micros === 0 ? '' : `.${pad(micros, 6).replace(/0+$/, '')}`;
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction}${offset}`;
  });

describe('isoInstant (P27)', () => {
  it('answers what Date answers for every timestamptz text, UTC or not', () => {
    fc.assert(
      fc.property(postgresText, (text) => {
        expect(isoInstant(text)).toBe(new Date(text).toISOString());
      }),
      { numRuns: 5_000 },
    );
  });

  it('rewrites UTC text to the millisecond, truncating', () => {
    expect(isoInstant('2026-11-27 14:00:00+00')).toBe('2026-11-27T14:00:00.000Z');
    expect(isoInstant('2026-11-27 14:00:00.5+00')).toBe('2026-11-27T14:00:00.500Z');
    expect(isoInstant('2026-11-27 14:00:00.123999+00')).toBe('2026-11-27T14:00:00.123Z');
    expect(isoInstant('2026-11-27 23:00:00+09')).toBe('2026-11-27T14:00:00.000Z');
  });
});
