/**
 * A sum of money read from the database (numeric or bigint arrive as text) as a JSON-safe number. Sums
 * beyond 2^53 cannot be sent exactly: they saturate instead of failing the answer.
 */
export function moneyOf(value: string | number | null | undefined): number {
  const amount = Number(value ?? 0);
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, amount));
}
