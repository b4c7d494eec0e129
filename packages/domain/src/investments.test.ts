import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AMOUNT_SCALE,
  amountOf,
  averagePriceOf,
  fromScaled,
  PRICE_SCALE,
  QUANTITY_SCALE,
  type ReplayTrade,
  replayTrades,
  roundDecimal,
  subtractDecimals,
  sumDecimals,
  toScaled,
  valuationOf,
} from './investments.js';

let nextId = 0;
const trade = (side: ReplayTrade['side'], quantity: string, price: string, fee = '0', tradedAt = '2026-01-10') => ({
  id: ++nextId,
  side,
  quantity,
  price,
  fee,
  tradedAt,
});

const replayed = (trades: ReplayTrade[]) => {
  const outcome = replayTrades(trades);
  if (!outcome.ok) throw new Error(`refused at trade ${outcome.trade.id}`);
  return outcome.position;
};

describe('decimal helpers', () => {
  it('scale, round half away from zero and drop trailing zeros', () => {
    expect(toScaled('12.5', 2)).toBe(1250n);
    expect(toScaled('-0.010', 2)).toBe(-1n);
    expect(() => toScaled('1.234', 2)).toThrow();
    expect(fromScaled(12345n, 3, 2)).toBe('12.35');
    expect(fromScaled(-12345n, 3, 2)).toBe('-12.35');
    expect(fromScaled(-4n, 1, 0)).toBe('0');
    expect(fromScaled(-5n, 1, 0)).toBe('-1');
    expect(fromScaled(5000n, 3)).toBe('5');
    expect(fromScaled(7n, 6)).toBe('0.000007');
    expect(roundDecimal('187.23456', 4)).toBe('187.2346');
    expect(roundDecimal('71500.0000', 0)).toBe('71500');
    expect(sumDecimals(['1.5', '2.25', '-1'])).toBe('2.75');
    expect(sumDecimals([])).toBe('0');
    expect(subtractDecimals('10', '10.0001')).toBe('-0.0001');
  });
});

describe('moving-average replay', () => {
  it('computes the average price, realized profit and cost basis of a hand-computed sequence', () => {
    // Buy 10 @ 1,000 + fee 100 → cost 10,100 (avg 1,010); buy 5 @ 1,300 + fee 50 → cost 16,650 over 15
    // (avg 1,110); sell 6 @ 1,500 − fee 90: cost taken out 16,650 × 6/15 = 6,660, realized 9,000 − 90 − 6,660.
    const trades = [
      trade('BUY', '10', '1000', '100', '2026-01-02'),
      trade('BUY', '5', '1300', '50', '2026-01-05'),
      trade('SELL', '6', '1500', '90', '2026-01-09'),
    ];
    const position = replayed(trades);
    expect(position).toEqual({ quantity: '9', cost: '9990', realizedProfit: '2250' });
    expect(averagePriceOf(position, 0)).toBe('1110');
    expect(valuationOf(position.quantity, '1200', 0)).toBe('10800');
  });

  it('replays by trade date then id, whatever the input order', () => {
    const sellFirstInInput = [trade('SELL', '1', '10', '0', '2026-02-01'), trade('BUY', '1', '5', '0', '2026-01-01')];
    expect(replayed(sellFirstInInput)).toEqual({ quantity: '0', cost: '0', realizedProfit: '5' });
    const sameDay = [trade('BUY', '1', '5', '0', '2026-01-01'), trade('SELL', '1', '10', '0', '2026-01-01')];
    expect(replayTrades(sameDay).ok).toBe(true);
    expect(replayTrades([...sameDay].reverse()).ok).toBe(true);
  });

  it('refuses the first sell of more than is held at its point in time', () => {
    const early = trade('SELL', '3', '10', '0', '2026-01-01');
    const outcome = replayTrades([trade('BUY', '5', '10', '0', '2026-01-02'), early]);
    expect(outcome).toEqual({ ok: false, trade: early, shortBy: '3' });
    expect(replayTrades([trade('BUY', '1.5', '1'), trade('SELL', '1.500001', '1')])).toMatchObject({
      ok: false,
      shortBy: '0.000001',
    });
  });

  it('keeps fractional quantities and foreign prices exact', () => {
    const position = replayed([
      trade('BUY', '0.333333', '187.23', '0.5'),
      trade('BUY', '0.666667', '190.1', '0.5'),
      trade('SELL', '0.5', '200', '0.25'),
    ]);
    expect(position.quantity).toBe('0.5');
    // cost 0.333333 × 187.23 + 0.5 + 0.666667 × 190.1 + 0.5 = 62.40993759 + 126.73339670 + 1
    expect(fromScaled(toScaled(position.cost, AMOUNT_SCALE) * 2n, AMOUNT_SCALE)).toBe('190.14333429');
  });
});

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

const scaledString = (scale: number, max: number, min = 0) =>
  fc.integer({ min, max }).map((value) => fromScaled(BigInt(value), scale));

const arbitraryTrade = fc.record({
  side: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL'),
  quantity: scaledString(QUANTITY_SCALE, 50_000_000, 1),
  price: scaledString(PRICE_SCALE, 50_000_000),
  fee: scaledString(PRICE_SCALE, 100_000),
  day: fc.integer({ min: 1, max: 28 }),
});

const arbitraryTrades = fc.array(arbitraryTrade, { maxLength: 30 }).map((drawn) =>
  drawn.map(
    (t, index): ReplayTrade => ({
      id: index + 1,
      side: t.side,
      quantity: t.quantity,
      price: t.price,
      fee: t.fee,
      tradedAt: `2026-03-${String(t.day).padStart(2, '0')}`,
    }),
  ),
);

/** Running quantities in replay order, computed independently of the replay. */
function runningQuantities(trades: ReplayTrade[]): bigint[] {
  const ordered = [...trades].sort((a, b) => a.tradedAt.localeCompare(b.tradedAt) || a.id - b.id);
  let held = 0n;
  return ordered.map((t) => {
    held += (t.side === 'BUY' ? 1n : -1n) * toScaled(t.quantity, QUANTITY_SCALE);
    return held;
  });
}

describe('replay properties', () => {
  it('accepts a sequence exactly when no running quantity goes negative, and ends at the net quantity', () => {
    fc.assert(
      fc.property(arbitraryTrades, (trades) => {
        const running = runningQuantities(trades);
        const outcome = replayTrades(trades);
        expect(outcome.ok).toBe(running.every((held) => held >= 0n));
        if (outcome.ok) {
          expect(toScaled(outcome.position.quantity, QUANTITY_SCALE)).toBe(running.at(-1) ?? 0n);
          expect(toScaled(outcome.position.cost, AMOUNT_SCALE) >= 0n).toBe(true);
        }
      }),
    );
  });

  it('conserves cost: cost taken out by the sells + remaining cost basis = total buying cost, exactly', () => {
    fc.assert(
      fc.property(arbitraryTrades, (trades) => {
        const outcome = replayTrades(trades);
        fc.pre(outcome.ok);
        if (!outcome.ok) return;
        const fee = (t: ReplayTrade) => toScaled(t.fee, PRICE_SCALE) * 10n ** BigInt(QUANTITY_SCALE);
        const boughtCost = trades
          .filter((t) => t.side === 'BUY')
          .reduce((sum, t) => sum + amountOf(t.quantity, t.price) + fee(t), 0n);
        const netProceeds = trades
          .filter((t) => t.side === 'SELL')
          .reduce((sum, t) => sum + amountOf(t.quantity, t.price) - fee(t), 0n);
        const realized = toScaled(outcome.position.realizedProfit, AMOUNT_SCALE);
        const remaining = toScaled(outcome.position.cost, AMOUNT_SCALE);
        // Cost taken out by the sells + cost still held = everything the buys cost.
        expect(netProceeds - realized + remaining).toBe(boughtCost);
      }),
    );
  });

  it('leaves the average price unchanged by a sell (to the last of 4 fractional digits)', () => {
    fc.assert(
      fc.property(arbitraryTrades, arbitraryTrade, (trades, extra) => {
        const before = replayTrades(trades);
        fc.pre(before.ok);
        if (!before.ok) return;
        const held = toScaled(before.position.quantity, QUANTITY_SCALE);
        const sold = toScaled(extra.quantity, QUANTITY_SCALE) % (held + 1n);
        fc.pre(sold > 0n && sold < held);
        const sale: ReplayTrade = {
          id: trades.length + 1,
          side: 'SELL',
          quantity: fromScaled(sold, QUANTITY_SCALE),
          price: extra.price,
          fee: extra.fee,
          tradedAt: '2026-04-01',
        };
        const after = replayTrades([...trades, sale]);
        expect(after.ok).toBe(true);
        if (!after.ok) return;
        const averageBefore = toScaled(averagePriceOf(before.position, PRICE_SCALE), PRICE_SCALE);
        const averageAfter = toScaled(averagePriceOf(after.position, PRICE_SCALE), PRICE_SCALE);
        expect(averageAfter - averageBefore <= 1n && averageBefore - averageAfter <= 1n).toBe(true);
      }),
    );
  });
});
