/** Investments (premium): holdings, trades, portfolio and quotes. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CurrencySchema,
  DateSchema,
  DecimalSchema,
  decimalString,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  listOf,
  meta,
  NonNegativeMoneySchema,
  PageQuerySchema,
  paginated,
  problems,
  QuantitySchema,
  routerOptions,
  withCommonProblems,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { nonBlankText, text } from '../text.js';
import { DateRangeQuerySchema, OptionalIdQuerySchema } from './shared.js';

const c = initContract();

export const StockCodeSchema = z
  .string()
  .trim()
  .regex(
    /^(?=.*[A-Za-z0-9])[A-Za-z0-9.\-^=]{1,20}$/,
    'expected a stock code (letters, digits, . - ^ =; a letter or digit at least)',
  )
  .transform((code) => code.toUpperCase())
  .describe('Stock code of the quote provider, e.g. `IBM` or `005930.KS` (stored upper-case)');

/**
 * Prices, fees and amounts of investments are in the holding's currency (null = local currency), as
 * exact decimal strings: a foreign share costs `187.23`, which whole local units cannot hold. Local-currency
 * prices and fees have no fractional part (400 otherwise) and local amounts are rounded to whole units;
 * foreign ones keep up to 4 fractional digits. Amounts carry no trailing zeros (`"1110"`, `"187.5"`).
 */
const PriceStringSchema = decimalString(14, 4);
/**
 * A unit price or fee sent by a client: a decimal string, or a whole number (whole numbers are exact in
 * JSON; fractions are sent as strings so that no float ever carries them).
 */
export const PriceInputSchema = z
  .union([NonNegativeMoneySchema.max(99_999_999_999_999), PriceStringSchema])
  .transform((value) => String(value))
  .describe("Decimal string in the holding's currency (at most 4 fractional digits; none for local currency)");
/** A trade quantity sent by a client: a decimal string, or a whole number. */
export const QuantityInputSchema = z
  .union([z.number().int().min(1).max(999_999_999_999), QuantitySchema])
  .transform((value) => String(value))
  .describe('Greater than 0, at most 6 fractional digits (a decimal string, or a whole number)');
/** A non-negative amount in the holding's currency. */
export const AmountSchema = text()
  .regex(/^\d{1,28}(\.\d{1,4})?$/, 'expected a non-negative decimal string')
  .describe("Decimal string in the holding's currency");
/** A signed amount (profits) in the holding's currency. */
export const SignedAmountSchema = text()
  .regex(/^-?\d{1,28}(\.\d{1,4})?$/, 'expected a decimal string')
  .describe("Decimal string in the holding's currency, negative for a loss");

// ---------------------------------------------------------------------------
// Holdings
// ---------------------------------------------------------------------------

export const HoldingFieldsSchema = z.object({
  name: nonBlankText().max(50),
  stockCode: StockCodeSchema.nullable().optional().describe('Used for the automatic quote lookup'),
  currency: CurrencySchema.nullable()
    .optional()
    .describe('Currency of its prices, fees and quotes; null = local currency (whole units)'),
});
export const CreateHoldingRequestSchema = HoldingFieldsSchema;
export type CreateHoldingRequest = z.infer<typeof CreateHoldingRequestSchema>;
export const UpdateHoldingRequestSchema = HoldingFieldsSchema.partial();
export type UpdateHoldingRequest = z.infer<typeof UpdateHoldingRequestSchema>;

export const HoldingSchema = z.object({
  id: IdSchema,
  name: text(),
  stockCode: text().nullable(),
  currency: CurrencySchema.nullable(),
  quantity: DecimalSchema.describe('Derived from the trades'),
  averagePrice: AmountSchema.describe('Moving average, buying fees included; a sell leaves it unchanged'),
  purchaseAmount: AmountSchema.describe('Cost basis of the held quantity (quantity × averagePrice before rounding)'),
  realizedProfit: SignedAmountSchema.describe('Sum over the sells of price × quantity − fee − cost taken out'),
  currentPrice: AmountSchema.nullable().describe('Last known quote; null when none is known'),
  priceUpdatedAt: InstantSchema.nullable().describe('When the quote provider gave currentPrice'),
  createdAt: InstantSchema,
  updatedAt: InstantSchema,
});
export type Holding = z.infer<typeof HoldingSchema>;
export const HoldingListSchema = listOf(HoldingSchema);
export type HoldingList = z.infer<typeof HoldingListSchema>;

// ---------------------------------------------------------------------------
// Trades
// ---------------------------------------------------------------------------

export const TradeSideSchema = z.enum(['BUY', 'SELL']);
export type TradeSide = z.infer<typeof TradeSideSchema>;

export const TradeFieldsSchema = z.object({
  holdingId: IdSchema,
  side: TradeSideSchema,
  quantity: QuantityInputSchema,
  price: PriceInputSchema.describe("Unit price in the holding's currency"),
  fee: PriceInputSchema.default('0').describe("Fee in the holding's currency"),
  tradedAt: DateSchema,
});
export const CreateTradeRequestSchema = TradeFieldsSchema;
export type CreateTradeRequest = z.infer<typeof CreateTradeRequestSchema>;
export const UpdateTradeRequestSchema = TradeFieldsSchema.extend({ fee: PriceInputSchema }).partial();
export type UpdateTradeRequest = z.infer<typeof UpdateTradeRequestSchema>;

export const TradeSchema = z.object({
  id: IdSchema,
  holdingId: IdSchema,
  side: TradeSideSchema,
  quantity: DecimalSchema,
  price: AmountSchema,
  fee: AmountSchema,
  tradedAt: DateSchema,
  createdAt: InstantSchema,
  updatedAt: InstantSchema,
});
export type Trade = z.infer<typeof TradeSchema>;
export const TradeListQuerySchema = PageQuerySchema.merge(DateRangeQuerySchema).extend({
  holdingId: OptionalIdQuerySchema,
});
export type TradeListQuery = z.infer<typeof TradeListQuerySchema>;
export const TradePageSchema = paginated(TradeSchema);
export type TradePage = z.infer<typeof TradePageSchema>;

// ---------------------------------------------------------------------------
// Portfolio and quotes
// ---------------------------------------------------------------------------

export const PortfolioHoldingSchema = z.object({
  holdingId: IdSchema,
  name: text(),
  stockCode: text().nullable(),
  currency: CurrencySchema.nullable(),
  quantity: DecimalSchema,
  averagePrice: AmountSchema,
  currentPrice: AmountSchema.nullable().describe('null when no quote is known'),
  purchaseAmount: AmountSchema.describe('Cost basis of the held quantity, rounded'),
  valuation: AmountSchema.nullable().describe('quantity × currentPrice, rounded'),
  valuationProfit: SignedAmountSchema.nullable().describe('valuation − purchaseAmount'),
  realizedProfit: SignedAmountSchema,
  priceUpdatedAt: InstantSchema.nullable(),
});
export type PortfolioHolding = z.infer<typeof PortfolioHoldingSchema>;
/** Sums over the holdings of one currency. */
export const PortfolioTotalsSchema = z.object({
  purchaseAmount: AmountSchema,
  valuation: AmountSchema.describe('Holdings without a quote count at their purchase amount'),
  valuationProfit: SignedAmountSchema.describe('Over the holdings with a quote'),
  realizedProfit: SignedAmountSchema,
});
export type PortfolioTotals = z.infer<typeof PortfolioTotalsSchema>;
export const CurrencyTotalsSchema = PortfolioTotalsSchema.extend({ currency: CurrencySchema });
export type CurrencyTotals = z.infer<typeof CurrencyTotalsSchema>;
export const PortfolioSchema = z
  .object({
    holdings: z.array(PortfolioHoldingSchema),
    totals: PortfolioTotalsSchema,
    foreignTotals: z
      .array(CurrencyTotalsSchema)
      .describe('Foreign-currency holdings, per currency (valued in their own currency, not converted)'),
  })
  .describe('`totals` sums the local-currency holdings (currency null) in whole units; `foreignTotals` the others');
export type Portfolio = z.infer<typeof PortfolioSchema>;

export const QuoteParamSchema = z.object({ code: StockCodeSchema });
export type QuoteParam = z.infer<typeof QuoteParamSchema>;
export const QuoteSchema = z.object({
  stockCode: text(),
  name: text().nullable().describe('null: the quote provider does not give names'),
  price: AmountSchema.describe("In the currency the provider quotes the code in (a holding's currency)"),
  currency: CurrencySchema.nullable().describe('null: the quote provider does not say'),
  asOf: InstantSchema.describe('When the quote provider gave the price'),
});
export type Quote = z.infer<typeof QuoteSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const investmentsContract = withCommonProblems(
  c.router(
    {
      listHoldings: {
        method: 'GET',
        path: '/api/account/holdings',
        summary: 'Holdings (quotes are refreshed on entry)',
        responses: { 200: HoldingListSchema },
        metadata: meta('premium'),
      },
      createHolding: {
        method: 'POST',
        path: '/api/account/holdings',
        summary: 'Create a holding (quantity and prices come from its trades)',
        body: CreateHoldingRequestSchema,
        responses: { 201: HoldingSchema },
        metadata: meta('premium'),
      },
      getHolding: {
        method: 'GET',
        path: '/api/account/holdings/:id',
        summary: 'One holding',
        pathParams: IdParamSchema,
        responses: { 200: HoldingSchema },
        metadata: meta('premium'),
      },
      updateHolding: {
        method: 'PUT',
        path: '/api/account/holdings/:id',
        summary: 'Rename a holding or change its stock code',
        pathParams: IdParamSchema,
        body: UpdateHoldingRequestSchema,
        responses: { 200: HoldingSchema },
        metadata: meta('premium'),
      },
      deleteHolding: {
        method: 'DELETE',
        path: '/api/account/holdings/:id',
        summary: 'Delete a holding and its trades',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('premium'),
      },
      listTrades: {
        method: 'GET',
        path: '/api/account/trades',
        summary: 'Trades, newest first, optionally of one holding (404 when the holding is not yours)',
        query: TradeListQuerySchema,
        responses: { 200: TradePageSchema, ...problems('NOT_FOUND') },
        metadata: meta('premium'),
      },
      createTrade: {
        method: 'POST',
        path: '/api/account/trades',
        summary: 'Record a trade (a sell beyond the held quantity is refused with 409)',
        body: CreateTradeRequestSchema,
        responses: { 201: TradeSchema, ...problems('NOT_FOUND', 'HOLDING_QUANTITY_NEGATIVE') },
        metadata: meta('premium'),
      },
      updateTrade: {
        method: 'PUT',
        path: '/api/account/trades/:id',
        summary: 'Edit a trade; refused (409) when replaying the trades in time order makes a quantity negative',
        pathParams: IdParamSchema,
        body: UpdateTradeRequestSchema,
        responses: { 200: TradeSchema, ...problems('HOLDING_QUANTITY_NEGATIVE', 'CONFLICT') },
        metadata: meta('premium'),
      },
      deleteTrade: {
        method: 'DELETE',
        path: '/api/account/trades/:id',
        summary: 'Delete a trade; refused (409) when the replay makes a quantity negative',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody(), ...problems('HOLDING_QUANTITY_NEGATIVE', 'CONFLICT') },
        metadata: meta('premium'),
      },
      portfolio: {
        method: 'GET',
        path: '/api/account/portfolio',
        summary: 'Portfolio with valuation and profits (quotes are refreshed on entry)',
        responses: { 200: PortfolioSchema },
        metadata: meta('premium'),
      },
      quote: {
        method: 'GET',
        path: '/api/account/quotes/:code',
        summary: 'Current quote of a stock code (unknown code 404, provider down or not set up 503)',
        pathParams: QuoteParamSchema,
        responses: { 200: QuoteSchema, ...problems('RATE_LIMITED', 'PROVIDER_NOT_CONFIGURED', 'PROVIDER_UNAVAILABLE') },
        metadata: meta('premium'),
      },
    },
    routerOptions,
  ),
);

/** Component names of investments (see schema-names.ts). */
export const investmentsNamedSchemas: NamedSchemas = {
  Holding: HoldingSchema,
  HoldingList: HoldingListSchema,
  Trade: TradeSchema,
  TradePage: TradePageSchema,
  PortfolioHolding: PortfolioHoldingSchema,
  PortfolioTotals: PortfolioTotalsSchema,
  CurrencyTotals: CurrencyTotalsSchema,
  Portfolio: PortfolioSchema,
  Quote: QuoteSchema,
  TradeSide: TradeSideSchema,
};
