import { describe, expect, it } from 'vitest';
import { type CreditLineTerms, creditLineOf } from './credit-line.js';

const line = (overrides: Partial<CreditLineTerms> = {}): CreditLineTerms => ({
  limit: 10_000_000,
  annualRatePercent: '5.5',
  months: 12,
  start: '2026-01-02',
  ...overrides,
});

describe('credit line', () => {
  it('draws what the balance is below zero; a positive balance draws nothing', () => {
    expect(creditLineOf(line(), -3_000_000)).toEqual({
      limit: 10_000_000,
      drawn: 3_000_000,
      available: 7_000_000,
      overLimit: 0,
      monthlyInterestEstimate: 13_750,
      maturityDate: '2027-01-02',
    });
    expect(creditLineOf(line(), 250_000)).toMatchObject({
      drawn: 0,
      available: 10_000_000,
      monthlyInterestEstimate: 0,
    });
    expect(creditLineOf(line(), 0)).toMatchObject({ drawn: 0, available: 10_000_000 });
  });

  it('never shows negative available credit: over the limit is shown apart', () => {
    expect(creditLineOf(line(), -10_500_000)).toMatchObject({ available: 0, overLimit: 500_000 });
    expect(creditLineOf(line(), -10_000_000)).toMatchObject({ available: 0, overLimit: 0 });
  });

  it('truncates the monthly interest to whole units; no rate is 0 %', () => {
    // 1,000,100 × 5.5 % / 12 = 4,583.79…: 4,583 (half up would say 4,584).
    expect(creditLineOf(line(), -1_000_100).monthlyInterestEstimate).toBe(4_583);
    expect(creditLineOf(line({ annualRatePercent: '0.0001' }), -1_000_000).monthlyInterestEstimate).toBe(0);
    expect(creditLineOf(line({ annualRatePercent: null }), -1_000_000).monthlyInterestEstimate).toBe(0);
    // The largest balance at the largest rate stays a safe integer.
    const extreme = creditLineOf(line({ annualRatePercent: '999.9999' }), -Number.MAX_SAFE_INTEGER);
    expect(Number.isSafeInteger(extreme.monthlyInterestEstimate)).toBe(true);
    expect(extreme.monthlyInterestEstimate).toBeLessThan(Number.MAX_SAFE_INTEGER);
  });

  it('matures start + months, clamped to a shorter month; no term, no maturity', () => {
    expect(creditLineOf(line({ start: '2026-01-31', months: 1 }), 0).maturityDate).toBe('2026-02-28');
    expect(creditLineOf(line({ months: null, start: null }), 0).maturityDate).toBeNull();
  });
});
