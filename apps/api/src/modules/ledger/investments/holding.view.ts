import type { CurrencyTotals, Holding, Portfolio, PortfolioHolding, PortfolioTotals, Trade } from '@nestegg/contract';
import type { InvestmentTrade } from '@nestegg/db';
import {
  averagePriceOf,
  PRICE_SCALE,
  QUANTITY_SCALE,
  roundDecimal,
  subtractDecimals,
  sumDecimals,
  valuationOf,
} from '@nestegg/domain';

/** A holding as stored, with the last known quote of its code. */
export interface HoldingRow {
  id: number;
  name: string;
  stockCode: string | null;
  currency: string | null;
  quantity: string;
  costBasis: string;
  realizedProfit: string;
  createdAt: Date;
  updatedAt: Date;
  quotePrice: string | null;
  quoteFetchedAt: Date | null;
}

/** Local-currency amounts are whole units; foreign ones keep the 4 fractional digits of their prices. */
export const fractionDigitsOf = (currency: string | null): number => (currency === null ? 0 : PRICE_SCALE);

/** The holding's money values, rounded to its currency. */
function figuresOf(row: HoldingRow) {
  const digits = fractionDigitsOf(row.currency);
  const quantity = roundDecimal(row.quantity, QUANTITY_SCALE);
  const price = row.quotePrice === null ? null : roundDecimal(row.quotePrice, PRICE_SCALE);
  return {
    quantity,
    averagePrice: averagePriceOf({ quantity, cost: row.costBasis }, digits),
    purchaseAmount: roundDecimal(row.costBasis, digits),
    realizedProfit: roundDecimal(row.realizedProfit, digits),
    currentPrice: price === null ? null : roundDecimal(price, digits),
    valuation: price === null ? null : valuationOf(quantity, price, digits),
    priceUpdatedAt: price === null ? null : (row.quoteFetchedAt?.toISOString() ?? null),
  };
}

export function toHolding(row: HoldingRow): Holding {
  const { valuation: _valuation, ...figures } = figuresOf(row);
  return {
    id: row.id,
    name: row.name,
    stockCode: row.stockCode,
    currency: row.currency,
    ...figures,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toPortfolioHolding(row: HoldingRow): PortfolioHolding {
  const figures = figuresOf(row);
  return {
    holdingId: row.id,
    name: row.name,
    stockCode: row.stockCode,
    currency: row.currency,
    ...figures,
    valuationProfit: figures.valuation === null ? null : subtractDecimals(figures.valuation, figures.purchaseAmount),
  };
}

/** Sums of rounded per-holding values, so the totals add up to what each line shows. */
function totalsOf(holdings: PortfolioHolding[]): PortfolioTotals {
  return {
    purchaseAmount: sumDecimals(holdings.map((h) => h.purchaseAmount)),
    valuation: sumDecimals(holdings.map((h) => h.valuation ?? h.purchaseAmount)),
    valuationProfit: sumDecimals(holdings.map((h) => h.valuationProfit ?? '0')),
    realizedProfit: sumDecimals(holdings.map((h) => h.realizedProfit)),
  };
}

/**
 * The portfolio: every holding valued at its last known quote, totals for the local-currency holdings and
 * per foreign currency (foreign holdings are valued in their own currency, not converted).
 */
export function toPortfolio(rows: HoldingRow[]): Portfolio {
  const holdings = rows.map(toPortfolioHolding);
  const byCurrency = new Map<string, PortfolioHolding[]>();
  for (const holding of holdings) {
    if (holding.currency === null) continue;
    byCurrency.set(holding.currency, [...(byCurrency.get(holding.currency) ?? []), holding]);
  }
  const foreignTotals: CurrencyTotals[] = [...byCurrency.keys()]
    .sort()
    .map((currency) => ({ currency, ...totalsOf(byCurrency.get(currency)!) }));
  return { holdings, totals: totalsOf(holdings.filter((h) => h.currency === null)), foreignTotals };
}

type TradeRow = Pick<
  InvestmentTrade,
  'id' | 'holdingId' | 'side' | 'quantity' | 'price' | 'fee' | 'tradedAt' | 'createdAt' | 'updatedAt'
>;

export function toTrade(row: TradeRow): Trade {
  return {
    id: row.id,
    holdingId: row.holdingId,
    side: row.side,
    quantity: roundDecimal(row.quantity, QUANTITY_SCALE),
    price: roundDecimal(row.price, PRICE_SCALE),
    fee: roundDecimal(row.fee, PRICE_SCALE),
    tradedAt: row.tradedAt,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
