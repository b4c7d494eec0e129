/**
 * A credit line (마이너스통장, a MINUS wallet): what is drawn, what is left, and the interest the drawn balance
 * accrues, from the line's terms and the wallet's balance alone. The balance is the account as the bank shows
 * it: negative when money is drawn, so the drawn amount is minus the balance (nothing when it is positive).
 * Arithmetic is exact: the rate is a decimal string, interest is computed in BigInt and truncated to whole units
 * (원 미만 절사, as Korean banks charge interest).
 */

import { addMonths, type CalendarDate } from './calendar.js';
import { parseDecimal } from './loan.js';

export interface CreditLineTerms {
  /** The credit limit, whole units. */
  limit: number;
  /** Annual interest on the drawn balance in percent as a decimal string; `null` counts as 0. */
  annualRatePercent: string | null;
  /** The line's term: months from `start` to its maturity (renewal); both or neither. */
  months: number | null;
  start: CalendarDate | null;
}

export interface CreditLine {
  limit: number;
  /** Minus the balance when it is negative, else 0. */
  drawn: number;
  /** limit − drawn, never below 0. */
  available: number;
  /** drawn − limit when the line is over its limit, else 0. */
  overLimit: number;
  /** One month of interest on today's drawn balance: drawn × rate / 12, truncated to whole units. */
  monthlyInterestEstimate: number;
  /** start + months (the same day, clamped to a shorter month), when the line has a term. */
  maturityDate: CalendarDate | null;
}

export function creditLineOf(terms: CreditLineTerms, balance: number): CreditLine {
  const drawn = balance < 0 ? -balance : 0;
  const { numerator: rate, denominator: scale } = parseDecimal(terms.annualRatePercent ?? '0');
  return {
    limit: terms.limit,
    drawn,
    available: Math.max(terms.limit - drawn, 0),
    overLimit: Math.max(drawn - terms.limit, 0),
    // drawn × (rate / scale) / 100 / 12; never above drawn (the rate is below 1,000 %), so a safe integer.
    monthlyInterestEstimate: Number((BigInt(drawn) * rate) / (1200n * scale)),
    maturityDate: terms.months !== null && terms.start !== null ? addMonths(terms.start, terms.months) : null,
  };
}
