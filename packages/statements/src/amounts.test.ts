import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyCode, decimalText, parseAmount, usesDecimalComma, wholeUnits } from './amounts.js';

const won = (cell: string) => {
  const a = parseAmount(cell);
  return a ? wholeUnits(a) : null;
};

describe('parseAmount', () => {
  it.each([
    ['12,345', 12345],
    ['12345', 12345],
    ['-12,345', -12345],
    ['(12,345)', -12345],
    ['12,345-', -12345],
    ['△12,345', -12345],
    ['−12,345', -12345],
    ['12,345원', 12345],
    ['-12,345원', -12345],
    ['₩12,345', 12345],
    ['￦12,345', 12345],
    ['\\12,345', 12345],
    ['KRW 12,345', 12345],
    ['12,345 KRW', 12345],
    ['+5,000', 5000],
    ['１２，３４５', 12345],
    ['12,345.00', 12345],
    ['0', 0],
  ])('%s → %d won', (cell, n) => {
    expect(won(cell)).toBe(n);
  });

  it.each(['', '합계', '12,34,5', '1.2.3', '12원34', 'USD', '--'])('%j is no amount', (cell) => {
    expect(parseAmount(cell)).toBeNull();
  });

  it('keeps the fraction and the currency a foreign amount names', () => {
    expect(parseAmount('USD 12.34')).toEqual({ negative: false, whole: '12', fraction: '34', currency: 'USD' });
    expect(parseAmount('$1,012.30')).toMatchObject({ whole: '1012', fraction: '30', currency: 'USD' });
    expect(parseAmount('12.34 EUR')).toMatchObject({ currency: 'EUR' });
    expect(parseAmount('(JPY 3,400)')).toMatchObject({ negative: true, whole: '3400', currency: 'JPY' });
    expect(parseAmount('12.34달러')).toMatchObject({ currency: 'USD' });
    expect(decimalText(parseAmount('-0.50')!)).toBe('0.50');
    expect(wholeUnits(parseAmount('12.5')!)).toBeNull();
  });

  it('reads decimal commas when the column uses them', () => {
    expect(parseAmount('1.234,56', true)).toMatchObject({ whole: '1234', fraction: '56' });
    expect(parseAmount('-850,00', true)).toMatchObject({ negative: true, whole: '850', fraction: '00' });
    expect(parseAmount('1 234,56', true)).toMatchObject({ whole: '1234', fraction: '56' });
    expect(usesDecimalComma(['-850,00', '3.200,00'])).toBe(true);
    expect(usesDecimalComma(['1,234', '12,345원'])).toBe(false);
    expect(usesDecimalComma(['1,234.50', '12,34'])).toBe(false);
  });

  it('round-trips whole amounts written with separators, signs and won marks (property)', () => {
    const group = (n: number) => n.toLocaleString('en-US');
    fc.assert(
      fc.property(
        fc.integer({ min: -9_007_199_254_740_991, max: 9_007_199_254_740_991 }),
        fc.constantFrom('', '원', ' 원', 'KRW ', '₩', '￦', ' KRW'),
        fc.constantFrom('minus', 'parentheses', 'trailing', 'triangle'),
        fc.boolean(),
        (n, mark, negativeStyle, grouped) => {
          const digits = grouped ? group(Math.abs(n)) : String(Math.abs(n));
          const body = /^(KRW |₩|￦)$/.test(mark) ? `${mark}${digits}` : `${digits}${mark}`;
          const cell =
            n >= 0
              ? body
              : negativeStyle === 'minus'
                ? `-${body}`
                : negativeStyle === 'parentheses'
                  ? `(${body})`
                  : negativeStyle === 'trailing'
                    ? `${body}-`
                    : `△${body}`;
          expect(won(cell)).toBe(n === 0 ? 0 : n);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('round-trips foreign decimals, point or comma (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 99 }),
        fc.boolean(),
        (whole, cents, comma) => {
          const fraction = String(cents).padStart(2, '0');
          const grouped = whole.toLocaleString(comma ? 'de-DE' : 'en-US');
          const a = parseAmount(`${grouped}${comma ? ',' : '.'}${fraction}`, comma);
          expect(a && decimalText(a)).toBe(`${whole}.${fraction}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('currencyCode', () => {
  it.each([
    ['usd', 'USD'],
    ['USD', 'USD'],
    ['₩', 'KRW'],
    ['원', 'KRW'],
    ['달러', 'USD'],
    ['US$', 'USD'],
    ['미국 달러 어쩌고', null],
  ])('%s → %s', (cell, code) => {
    expect(currencyCode(cell)).toBe(code);
  });
});
