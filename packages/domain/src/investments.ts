/**
 * Investment positions replayed from their trades in time order (trade date, then id): held quantity,
 * cost basis by the moving-average method, and realized profit. Arithmetic is exact on scaled BigInts:
 * quantities carry 6 fractional digits, prices and fees 4, amounts (quantity × price) 10 — never floats.
 *
 * Moving average: a buy adds its price × quantity plus its fee to the cost basis (so the average price
 * includes buying fees); a sell takes out the sold share of the cost basis, which leaves the average
 * unchanged, and realizes `price × quantity − fee − cost taken out`. Selling the whole quantity takes out
 * the whole cost basis, so nothing is lost to rounding.
 */

export type TradeSide = 'BUY' | 'SELL';

/** Fractional digits of a quantity (numeric(18,6)). */
export const QUANTITY_SCALE = 6;
/** Fractional digits of a price or fee. */
export const PRICE_SCALE = 4;
/** Fractional digits of an amount: quantity × price. */
export const AMOUNT_SCALE = QUANTITY_SCALE + PRICE_SCALE;

/** One trade as the replay needs it; numbers are decimal strings. */
export interface ReplayTrade {
  id: number;
  side: TradeSide;
  /** Greater than 0, at most 6 fractional digits. */
  quantity: string;
  /** Unit price, at most 4 fractional digits. */
  price: string;
  /** At most 4 fractional digits. */
  fee: string;
  /** `YYYY-MM-DD`. */
  tradedAt: string;
}

/** Where a replay ends, as exact decimal strings. */
export interface Position {
  /** Held quantity (6 fractional digits). */
  quantity: string;
  /** Cost basis of the held quantity (10 fractional digits). */
  cost: string;
  /** Realized profit of all sells (10 fractional digits), negative for a loss. */
  realizedProfit: string;
}

export type ReplayOutcome =
  | { ok: true; position: Position }
  /** `trade` sells more than is held at its point in time, by `shortBy`. */
  | { ok: false; trade: ReplayTrade; shortBy: string };

interface ScaledPosition {
  quantity: bigint;
  cost: bigint;
  realized: bigint;
}

const EMPTY: ScaledPosition = { quantity: 0n, cost: 0n, realized: 0n };
const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** `"12.5"` at scale 2 → `1250n`. Throws on more fractional digits than the scale (a caller bug). */
export function toScaled(decimal: string, scale: number): bigint {
  const match = DECIMAL.exec(decimal.trim());
  if (!match) throw new Error(`not a decimal: ${decimal}`);
  const [, minus, whole = '0', fraction = ''] = match;
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > scale) throw new Error(`more than ${scale} fractional digits: ${decimal}`);
  const value = BigInt(whole + significant.padEnd(scale, '0'));
  return minus ? -value : value;
}

/** Divides, rounding half away from zero. */
export function divideRounding(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new Error('division by zero');
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const rounded = (n * 2n + d) / (d * 2n);
  return negative ? -rounded : rounded;
}

/**
 * A scaled value as a decimal string with at most `fractionDigits` digits (rounded half away from zero),
 * without trailing zeros: `fromScaled(12345n, 3, 2)` → `"12.35"`, `fromScaled(5000n, 3)` → `"5"`.
 */
export function fromScaled(value: bigint, scale: number, fractionDigits = scale): string {
  const shown = Math.min(fractionDigits, scale);
  const rounded = divideRounding(value, 10n ** BigInt(scale - shown));
  const digits = (rounded < 0n ? -rounded : rounded).toString().padStart(shown + 1, '0');
  const whole = digits.slice(0, digits.length - shown);
  const fraction = digits.slice(digits.length - shown).replace(/0+$/, '');
  const sign = rounded < 0n ? '-' : '';
  return fraction ? `${sign}${whole}.${fraction}` : `${sign}${whole}`;
}

/** Rounds a decimal string to `fractionDigits` (half away from zero), trailing zeros dropped. */
export function roundDecimal(decimal: string, fractionDigits: number): string {
  const scale = Math.max(fractionDigits, decimalPlaces(decimal));
  return fromScaled(toScaled(decimal, scale), scale, fractionDigits);
}

function decimalPlaces(decimal: string): number {
  return (decimal.split('.')[1] ?? '').replace(/0+$/, '').length;
}

/** Trades in replay order: trade date, then id. */
export function inReplayOrder<T extends Pick<ReplayTrade, 'id' | 'tradedAt'>>(trades: readonly T[]): T[] {
  return [...trades].sort((a, b) => (a.tradedAt === b.tradedAt ? a.id - b.id : a.tradedAt < b.tradedAt ? -1 : 1));
}

/** Exact amount of `quantity × price` (10 fractional digits). */
export function amountOf(quantity: string, price: string): bigint {
  return toScaled(quantity, QUANTITY_SCALE) * toScaled(price, PRICE_SCALE);
}

function feeAmount(fee: string): bigint {
  return toScaled(fee, PRICE_SCALE) * 10n ** BigInt(QUANTITY_SCALE);
}

function buy(position: ScaledPosition, trade: ReplayTrade): ScaledPosition {
  return {
    quantity: position.quantity + toScaled(trade.quantity, QUANTITY_SCALE),
    cost: position.cost + amountOf(trade.quantity, trade.price) + feeAmount(trade.fee),
    realized: position.realized,
  };
}

/** The sold share of the cost basis; all of it when everything is sold. */
function costTakenOut(position: ScaledPosition, sold: bigint): bigint {
  if (sold === position.quantity) return position.cost;
  return divideRounding(position.cost * sold, position.quantity);
}

function sell(position: ScaledPosition, trade: ReplayTrade): ScaledPosition {
  const sold = toScaled(trade.quantity, QUANTITY_SCALE);
  const takenOut = costTakenOut(position, sold);
  const netProceeds = amountOf(trade.quantity, trade.price) - feeAmount(trade.fee);
  return {
    quantity: position.quantity - sold,
    cost: position.cost - takenOut,
    realized: position.realized + netProceeds - takenOut,
  };
}

function asPosition(scaled: ScaledPosition): Position {
  return {
    quantity: fromScaled(scaled.quantity, QUANTITY_SCALE),
    cost: fromScaled(scaled.cost, AMOUNT_SCALE),
    realizedProfit: fromScaled(scaled.realized, AMOUNT_SCALE),
  };
}

/**
 * Replays `trades` in time order (trade date, then id; the input order does not matter). Fails at the
 * first sell of more than is held at that point, so a quantity is never negative at any point.
 */
export function replayTrades(trades: readonly ReplayTrade[]): ReplayOutcome {
  let position = EMPTY;
  for (const trade of inReplayOrder(trades)) {
    if (trade.side === 'BUY') {
      position = buy(position, trade);
      continue;
    }
    const sold = toScaled(trade.quantity, QUANTITY_SCALE);
    if (sold > position.quantity) {
      return { ok: false, trade, shortBy: fromScaled(sold - position.quantity, QUANTITY_SCALE) };
    }
    position = sell(position, trade);
  }
  return { ok: true, position: asPosition(position) };
}

/** The average price of a position (cost basis ÷ quantity) with `fractionDigits`; `"0"` when nothing is held. */
export function averagePriceOf(position: Pick<Position, 'quantity' | 'cost'>, fractionDigits: number): string {
  const quantity = toScaled(position.quantity, QUANTITY_SCALE);
  if (quantity === 0n) return '0';
  const cost = toScaled(position.cost, AMOUNT_SCALE);
  // cost (10 digits) ÷ quantity (6 digits) = a price with 4 digits; 10^6 more keeps 10 digits before rounding.
  const price = divideRounding(cost * 10n ** BigInt(QUANTITY_SCALE), quantity);
  return fromScaled(price, AMOUNT_SCALE, fractionDigits);
}

/** The market value `quantity × price`, rounded to `fractionDigits`. */
export function valuationOf(quantity: string, price: string, fractionDigits: number): string {
  return fromScaled(amountOf(quantity, price), AMOUNT_SCALE, fractionDigits);
}

/** Sum of decimal strings, exact. */
export function sumDecimals(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map(decimalPlaces));
  return fromScaled(
    values.reduce((total, value) => total + toScaled(value, scale), 0n),
    scale,
  );
}

/** `a − b`, exact. */
export function subtractDecimals(a: string, b: string): string {
  const scale = Math.max(decimalPlaces(a), decimalPlaces(b));
  return fromScaled(toScaled(a, scale) - toScaled(b, scale), scale);
}

/** Whether a decimal string has a non-zero fractional part. */
export function hasFraction(decimal: string): boolean {
  return decimalPlaces(decimal) > 0;
}
