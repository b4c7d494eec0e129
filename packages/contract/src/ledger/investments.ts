/** Investments (premium): holdings, trades, portfolio and quotes. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CurrencySchema,
  DateSchema,
  DecimalSchema,
  errorResponses,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  listOf,
  MoneySchema,
  meta,
  NonNegativeMoneySchema,
  PageQuerySchema,
  paginated,
  QuantitySchema,
  routerOptions,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { text } from '../text.js';
import { DateRangeQuerySchema, OptionalIdQuerySchema } from './shared.js';

const c = initContract();

export const StockCodeSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9.\-^=]{1,20}$/, 'expected a stock code (letters, digits, . - ^ =)');

// ---------------------------------------------------------------------------
// Holdings
// ---------------------------------------------------------------------------

export const HoldingFieldsSchema = z.object({
  name: text().trim().min(1).max(50),
  stockCode: StockCodeSchema.nullable().optional().describe('Used for the automatic quote lookup'),
  currency: CurrencySchema.nullable().optional().describe('Quote currency; null = local currency'),
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
  averagePrice: NonNegativeMoneySchema.describe('Moving average of the buys'),
  realizedProfit: MoneySchema,
  currentPrice: NonNegativeMoneySchema.nullable(),
  priceUpdatedAt: InstantSchema.nullable(),
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
  quantity: QuantitySchema.describe('Greater than 0, at most 6 fractional digits'),
  price: NonNegativeMoneySchema.describe('Unit price, whole units'),
  fee: NonNegativeMoneySchema.default(0),
  tradedAt: DateSchema,
});
export const CreateTradeRequestSchema = TradeFieldsSchema;
export type CreateTradeRequest = z.infer<typeof CreateTradeRequestSchema>;
export const UpdateTradeRequestSchema = TradeFieldsSchema.extend({ fee: NonNegativeMoneySchema }).partial();
export type UpdateTradeRequest = z.infer<typeof UpdateTradeRequestSchema>;

export const TradeSchema = z.object({
  id: IdSchema,
  holdingId: IdSchema,
  side: TradeSideSchema,
  quantity: DecimalSchema,
  price: NonNegativeMoneySchema,
  fee: NonNegativeMoneySchema,
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
  averagePrice: NonNegativeMoneySchema,
  currentPrice: NonNegativeMoneySchema.nullable().describe('null when no quote is known'),
  purchaseAmount: NonNegativeMoneySchema.describe('quantity × averagePrice, rounded'),
  valuation: NonNegativeMoneySchema.nullable().describe('quantity × currentPrice, rounded'),
  valuationProfit: MoneySchema.nullable().describe('valuation − purchaseAmount'),
  realizedProfit: MoneySchema,
  priceUpdatedAt: InstantSchema.nullable(),
});
export type PortfolioHolding = z.infer<typeof PortfolioHoldingSchema>;
export const PortfolioSchema = z.object({
  holdings: z.array(PortfolioHoldingSchema),
  totals: z.object({
    purchaseAmount: NonNegativeMoneySchema,
    valuation: NonNegativeMoneySchema.describe('Holdings without a quote count at their purchase amount'),
    valuationProfit: MoneySchema,
    realizedProfit: MoneySchema,
  }),
});
export type Portfolio = z.infer<typeof PortfolioSchema>;

export const QuoteParamSchema = z.object({ code: StockCodeSchema });
export type QuoteParam = z.infer<typeof QuoteParamSchema>;
export const QuoteSchema = z.object({
  stockCode: text(),
  name: text().nullable(),
  price: NonNegativeMoneySchema,
  currency: CurrencySchema.nullable(),
  asOf: InstantSchema,
});
export type Quote = z.infer<typeof QuoteSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const investmentsContract = c.router(
  {
    listHoldings: {
      method: 'GET',
      path: '/api/account/holdings',
      summary: 'Holdings (quotes are refreshed on entry)',
      responses: { 200: HoldingListSchema, ...errorResponses(401, 403) },
      metadata: meta('premium'),
    },
    createHolding: {
      method: 'POST',
      path: '/api/account/holdings',
      summary: 'Create a holding (quantity and prices come from its trades)',
      body: CreateHoldingRequestSchema,
      responses: { 201: HoldingSchema, ...errorResponses(400, 401, 403, 413, 415) },
      metadata: meta('premium'),
    },
    getHolding: {
      method: 'GET',
      path: '/api/account/holdings/:id',
      summary: 'One holding',
      pathParams: IdParamSchema,
      responses: { 200: HoldingSchema, ...errorResponses(400, 401, 403, 404) },
      metadata: meta('premium'),
    },
    updateHolding: {
      method: 'PUT',
      path: '/api/account/holdings/:id',
      summary: 'Rename a holding or change its stock code',
      pathParams: IdParamSchema,
      body: UpdateHoldingRequestSchema,
      responses: { 200: HoldingSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
      metadata: meta('premium'),
    },
    deleteHolding: {
      method: 'DELETE',
      path: '/api/account/holdings/:id',
      summary: 'Delete a holding and its trades',
      pathParams: IdParamSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
      metadata: meta('premium'),
    },
    listTrades: {
      method: 'GET',
      path: '/api/account/trades',
      summary: 'Trades, newest first, optionally of one holding',
      query: TradeListQuerySchema,
      responses: { 200: TradePageSchema, ...errorResponses(400, 401, 403) },
      metadata: meta('premium'),
    },
    createTrade: {
      method: 'POST',
      path: '/api/account/trades',
      summary: 'Record a trade (a sell beyond the held quantity is refused with 409)',
      body: CreateTradeRequestSchema,
      responses: { 201: TradeSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      metadata: meta('premium'),
    },
    updateTrade: {
      method: 'PUT',
      path: '/api/account/trades/:id',
      summary: 'Edit a trade; refused (409) when replaying the trades in time order makes a quantity negative',
      pathParams: IdParamSchema,
      body: UpdateTradeRequestSchema,
      responses: { 200: TradeSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      metadata: meta('premium'),
    },
    deleteTrade: {
      method: 'DELETE',
      path: '/api/account/trades/:id',
      summary: 'Delete a trade; refused (409) when the replay makes a quantity negative',
      pathParams: IdParamSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 409) },
      metadata: meta('premium'),
    },
    portfolio: {
      method: 'GET',
      path: '/api/account/portfolio',
      summary: 'Portfolio with valuation and profits (quotes are refreshed on entry)',
      responses: { 200: PortfolioSchema, ...errorResponses(401, 403) },
      metadata: meta('premium'),
    },
    quote: {
      method: 'GET',
      path: '/api/account/quotes/:code',
      summary: 'Current quote of a stock code',
      pathParams: QuoteParamSchema,
      responses: { 200: QuoteSchema, ...errorResponses(400, 401, 403, 404) },
      metadata: meta('premium'),
    },
  },
  routerOptions,
);

/** Component names of investments (see schema-names.ts). */
export const investmentsNamedSchemas: NamedSchemas = {
  Holding: HoldingSchema,
  HoldingList: HoldingListSchema,
  Trade: TradeSchema,
  TradePage: TradePageSchema,
  PortfolioHolding: PortfolioHoldingSchema,
  Portfolio: PortfolioSchema,
  Quote: QuoteSchema,
  TradeSide: TradeSideSchema,
};
