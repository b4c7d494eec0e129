import { divideRounding, fromScaled, roundDecimal, toScaled } from '@nestegg/domain';

/**
 * The ledger's currency. The parser reads won amounts as whole local units and every other currency as
 * foreign, so the local currency is the won by construction, not a setting.
 */
export const LOCAL_CURRENCY = 'KRW';

/** Scales of the entry columns: original amount numeric(18,4), rate numeric(20,10). */
const ORIGINAL_SCALE = 4;
const RATE_SCALE = 10;
const ORIGINAL_AMOUNT = /^\d{1,14}(\.\d{1,4})?$/;

/** A foreign amount the entry can store (numeric(18,4)); anything else is unreadable. */
export function storableOriginalAmount(written: string | null): string | null {
  return written !== null && ORIGINAL_AMOUNT.test(written) ? written : null;
}

/** The rate as the entry stores it (10 fractional digits, half away from zero). */
export function storedRate(rate: string): string {
  return roundDecimal(rate, RATE_SCALE);
}

/**
 * `original × rate` in whole local units, rounded half away from zero, by exact integer arithmetic;
 * at least 1 (an entry's amount is positive); null for a zero amount (a card check, not a purchase) and
 * beyond a safe integer.
 */
export function convertedAmount(original: string, rate: string): number | null {
  const originalScaled = toScaled(original, ORIGINAL_SCALE);
  if (originalScaled === 0n) return null;
  const scaled = originalScaled * toScaled(rate, RATE_SCALE);
  const whole = divideRounding(scaled, 10n ** BigInt(ORIGINAL_SCALE + RATE_SCALE));
  if (whole > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return Math.max(1, Number(whole));
}

/**
 * The rate a statement implies when it gives both the local and the foreign amount: `local ÷ original`, at the
 * rate column's 10 fractional digits (half away from zero); null for a zero foreign amount.
 */
export function impliedRate(localAmount: number, original: string): string | null {
  const originalScaled = toScaled(original, ORIGINAL_SCALE);
  if (originalScaled === 0n) return null;
  const numerator = BigInt(localAmount) * 10n ** BigInt(ORIGINAL_SCALE + RATE_SCALE);
  return fromScaled(divideRounding(numerator, originalScaled), RATE_SCALE);
}
