/**
 * Loan amortization: the principal still owed on any date, from the loan's terms alone (no stored rows).
 * Payments fall monthly on the start date's day of month (clamped to shorter months), the first one a month
 * after the start. Arithmetic is exact: the rate is a decimal string and balances are computed as BigInt
 * fractions, rounded half up to whole units once.
 */
import { addMonths, type CalendarDate } from './calendar.js';

export type LoanMethod = 'EQUAL_PAYMENT' | 'EQUAL_PRINCIPAL' | 'BULLET';

export interface LoanTerms {
  /** Executed amount, whole units. */
  amount: number;
  /** Annual interest in percent as a decimal string, e.g. `4.25`; `null` counts as 0. */
  annualRatePercent: string | null;
  method: LoanMethod;
  months: number;
  start: CalendarDate;
}

/** How many monthly payments have fallen due on or before `asOf` (0..months); -1 before the loan starts. */
export function paymentsDueBy(terms: Pick<LoanTerms, 'months' | 'start'>, asOf: CalendarDate): number {
  if (asOf < terms.start) return -1;
  const [startYear, startMonth] = terms.start.split('-').map(Number) as [number, number];
  const [year, month] = asOf.split('-').map(Number) as [number, number];
  let due = (year - startYear) * 12 + (month - startMonth);
  if (addMonths(terms.start, due) > asOf) due -= 1;
  return Math.min(Math.max(due, 0), terms.months);
}

/** The principal owed on `asOf`: 0 before the start and after the last payment. */
export function outstandingPrincipal(terms: LoanTerms, asOf: CalendarDate): number {
  const paid = paymentsDueBy(terms, asOf);
  if (paid < 0 || paid >= terms.months) return 0;
  return principalAfter(terms, paid);
}

/** The principal owed right after payment `paid` (0 ≤ paid < months). */
export function principalAfter(terms: LoanTerms, paid: number): number {
  switch (terms.method) {
    case 'BULLET':
      return terms.amount;
    case 'EQUAL_PRINCIPAL':
      return Number(divideRoundingHalfUp(BigInt(terms.amount) * BigInt(terms.months - paid), BigInt(terms.months)));
    case 'EQUAL_PAYMENT':
      return knownAnnuityBalance(terms, paid);
  }
}

/**
 * Annuity balances already worked out, by amount, rate, months and payments made. Each is exact BigInt
 * arithmetic over powers of about 8,500 bits for a 30-year loan (some 35 µs), and net worth asks it of the same
 * loans on every request; the answer depends on those inputs alone, so a bounded map keeps the recent ones.
 */
const annuityBalances = new Map<string, number>();
const ANNUITY_BALANCES_KEPT = 4096;

function knownAnnuityBalance(terms: LoanTerms, paid: number): number {
  const key = `${terms.amount} ${terms.annualRatePercent} ${terms.months} ${paid}`;
  const known = annuityBalances.get(key);
  if (known !== undefined) return known;
  const balance = Number(annuityBalance(BigInt(terms.amount), terms.annualRatePercent, terms.months, paid));
  if (annuityBalances.size >= ANNUITY_BALANCES_KEPT) annuityBalances.delete(annuityBalances.keys().next().value!);
  annuityBalances.set(key, balance);
  return balance;
}

/**
 * Balance of an annuity after k of n payments, monthly factor q = N/D = 1 + rate/1200:
 * B_k = P (q^n − q^k) / (q^n − 1) = P (N^n − N^k·D^(n−k)) / (N^n − D^n). At 0 % it is P (n − k) / n.
 */
function annuityBalance(principal: bigint, annualRatePercent: string | null, months: number, paid: number): bigint {
  const { numerator: rate, denominator: scale } = parseDecimal(annualRatePercent ?? '0');
  const n = BigInt(months);
  const k = BigInt(paid);
  if (rate === 0n) return divideRoundingHalfUp(principal * (n - k), n);
  const D = 1200n * scale;
  const N = D + rate;
  const Nn = N ** n;
  return divideRoundingHalfUp(principal * (Nn - N ** k * D ** (n - k)), Nn - D ** n);
}

/** `12.3456` → 123456 / 10000, exactly. */
export function parseDecimal(value: string): { numerator: bigint; denominator: bigint } {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) throw new RangeError(`not a decimal: ${value}`);
  const fraction = match[2] ?? '';
  return { numerator: BigInt(match[1]! + fraction), denominator: 10n ** BigInt(fraction.length) };
}

/** a / b rounded half up, for a ≥ 0 and b > 0. */
function divideRoundingHalfUp(a: bigint, b: bigint): bigint {
  return (2n * a + b) / (2n * b);
}
