import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InstantSchema } from '../src/index.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The oracle: the day exists in its month (checked with `Date`, independently of the schema's table). */
const dayExists = (year: number, month: number, day: number): boolean => {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
};

/** Every string the pattern's shape allows, days 29..31 included in every month. */
const instantParts = fc.record({
  year: fc.integer({ min: 0, max: 9999 }),
  month: fc.integer({ min: 1, max: 12 }),
  day: fc.integer({ min: 1, max: 31 }),
  hour: fc.integer({ min: 0, max: 23 }),
  minute: fc.integer({ min: 0, max: 59 }),
  second: fc.integer({ min: 0, max: 59 }),
  fraction: fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
  offsetMinutes: fc.option(fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }), { nil: undefined }),
});

type InstantParts = typeof instantParts extends fc.Arbitrary<infer T> ? T : never;

const format = (p: InstantParts): string => {
  const offset =
    p.offsetMinutes === undefined
      ? 'Z'
      : `${p.offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(p.offsetMinutes) / 60))}:${pad(Math.abs(p.offsetMinutes) % 60)}`;
  const fraction = p.fraction === undefined ? '' : `.${pad(p.fraction, 3)}`;
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${fraction}${offset}`;
};

describe('InstantSchema', () => {
  it('refuses days that do not exist instead of rolling them over (issue 17 item 9)', () => {
    for (const s of [
      '2026-02-30T10:00:00Z',
      '2026-11-31T10:00:00Z',
      '2025-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:30:00+01:00',
      '9999-12-31T23:30:00-01:00',
    ]) {
      expect(InstantSchema.safeParse(s).success, s).toBe(false);
    }
    for (const s of [
      '2024-02-29T00:00:00Z',
      '2000-02-29T23:59:59.999+09:00',
      '2026-11-30T10:00:00Z',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      expect(InstantSchema.safeParse(s).success, s).toBe(true);
    }
  });

  it('accepts exactly the real instants within the years 0001..9999 in UTC', () => {
    fc.assert(
      fc.property(instantParts, (p) => {
        const s = format(p);
        const utcYear = new Date(Date.parse(s)).getUTCFullYear();
        const real = p.year >= 1 && dayExists(p.year, p.month, p.day) && utcYear >= 1 && utcYear <= 9999;
        expect(InstantSchema.safeParse(s).success).toBe(real);
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts every instant the server writes (Date#toISOString within 0001..9999)', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0001-01-01T00:00:00.000Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        (d) => {
          expect(InstantSchema.safeParse(d.toISOString()).success).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a refused instant carries one issue', () => {
    const result = InstantSchema.safeParse('2026-02-30T10:00:00Z');
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
  });
});
