import { describe, expect, it } from 'vitest';
import { type LoanTerms, outstandingPrincipal, paymentsDueBy, principalAfter } from './loan.js';

const terms = (overrides: Partial<LoanTerms>): LoanTerms => ({
  amount: 1_200_000,
  annualRatePercent: '12',
  method: 'EQUAL_PAYMENT',
  months: 12,
  start: '2026-01-31',
  ...overrides,
});

describe('loan payments due', () => {
  it('counts monthly payments on the start day, clamped to short months', () => {
    const loan = terms({});
    expect(paymentsDueBy(loan, '2026-01-30')).toBe(-1);
    expect(paymentsDueBy(loan, '2026-01-31')).toBe(0);
    expect(paymentsDueBy(loan, '2026-02-27')).toBe(0);
    expect(paymentsDueBy(loan, '2026-02-28')).toBe(1); // Jan 31 + 1 month = Feb 28
    expect(paymentsDueBy(loan, '2026-03-30')).toBe(1);
    expect(paymentsDueBy(loan, '2026-03-31')).toBe(2);
    expect(paymentsDueBy(loan, '2027-01-31')).toBe(12);
    expect(paymentsDueBy(loan, '2030-01-01')).toBe(12);
  });
});

describe('outstanding principal', () => {
  it('is nothing before the start and after the last payment', () => {
    expect(outstandingPrincipal(terms({}), '2025-12-31')).toBe(0);
    expect(outstandingPrincipal(terms({}), '2026-01-31')).toBe(1_200_000);
    expect(outstandingPrincipal(terms({}), '2027-01-31')).toBe(0);
  });

  it('equal payment (annuity): 1,200,000 at 12 % over 12 months', () => {
    // Monthly payment 106,618.55; after one payment 1,200,000 × 1.01 − 106,618.55 = 1,105,381.45.
    const loan = terms({});
    expect(principalAfter(loan, 1)).toBe(1_105_381);
    expect(principalAfter(loan, 11)).toBe(105_563); // the last payment's principal: 106,618.55 / 1.01
    const float = (k: number) => {
      const q = 1.01;
      return (1_200_000 * (q ** 12 - q ** k)) / (q ** 12 - 1);
    };
    for (let k = 0; k < 12; k += 1) expect(Math.abs(principalAfter(loan, k) - float(k))).toBeLessThanOrEqual(0.5);
  });

  it('equal payment at 0 % and equal principal repay the same share each month', () => {
    expect(principalAfter(terms({ annualRatePercent: '0' }), 3)).toBe(900_000);
    expect(principalAfter(terms({ annualRatePercent: null }), 3)).toBe(900_000);
    expect(principalAfter(terms({ method: 'EQUAL_PRINCIPAL' }), 3)).toBe(900_000);
    expect(principalAfter(terms({ method: 'EQUAL_PRINCIPAL', amount: 1000, months: 3 }), 1)).toBe(667);
  });

  it('bullet keeps the whole amount until maturity', () => {
    const loan = terms({ method: 'BULLET' });
    expect(outstandingPrincipal(loan, '2026-12-30')).toBe(1_200_000);
    expect(outstandingPrincipal(loan, '2027-01-31')).toBe(0);
  });

  it('handles long terms and fractional rates exactly', () => {
    const loan = terms({ amount: 300_000_000, annualRatePercent: '4.2500', months: 600, start: '2026-01-15' });
    const value = principalAfter(loan, 300);
    expect(Number.isInteger(value)).toBe(true);
    expect(value).toBeGreaterThan(0);
    expect(value).toBeLessThan(300_000_000);
  });

  it('answers a balance asked before as it was worked out, for each of the terms that decide it', () => {
    const variants: Array<[LoanTerms, number]> = [
      [terms({}), 5],
      [terms({}), 6],
      [terms({ amount: 1_200_001 }), 5],
      [terms({ annualRatePercent: '12.5' }), 5],
      [terms({ annualRatePercent: null }), 6],
      [terms({ method: 'EQUAL_PRINCIPAL' }), 5],
      [terms({ method: 'BULLET' }), 5],
      [terms({ months: 24 }), 5],
    ];
    const first = variants.map(([loan, paid]) => principalAfter(loan, paid));
    expect(new Set(first).size).toBe(variants.length);
    // Asked again in the other order, each gets its own answer, not a neighbour's.
    const again = [...variants].reverse().map(([loan, paid]) => principalAfter(loan, paid));
    expect(again.reverse()).toEqual(first);
  });

  it('keeps answering exactly after more balances than it keeps', () => {
    const loan = terms({ amount: 300_000_000, annualRatePercent: '4.25', months: 360 });
    const expected = principalAfter(loan, 36);
    for (let amount = 1; amount <= 5_000; amount += 1) principalAfter(terms({ amount, months: 360 }), 36);
    expect(principalAfter(loan, 36)).toBe(expected);
  });
});
