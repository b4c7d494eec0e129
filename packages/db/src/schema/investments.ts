import { sql } from 'drizzle-orm';
import {
  char,
  check,
  date,
  foreignKey,
  index,
  integer,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';
import { createdAt, instant, updatedAt } from './_common';
import { member } from './members';

/*
 * Investments. Prices, fees and amounts are in the holding's currency (null = local currency), so they are
 * exact decimals rather than whole local units: a foreign share costs 187.23. Member-owned tables follow the
 * scale-out rule (decision L5): keys and indexes lead with `member_id`, and a trade references its holding
 * by `(member_id, holding_id)` so it can only point at its own member's holding.
 */

/** Share quantity: exact decimal string, 6 fractional digits. */
const quantity = (name: string) => numeric(name, { precision: 18, scale: 6 });
/** Unit price or fee in the holding's currency: exact decimal string, 4 fractional digits. */
const price = (name: string) => numeric(name, { precision: 18, scale: 4 });
/** quantity × price, exact: 10 fractional digits. */
const amount = (name: string) => numeric(name, { precision: 38, scale: 10 });

export const tradeSide = pgEnum('trade_side', ['BUY', 'SELL']);
export type TradeSide = (typeof tradeSide.enumValues)[number];

/**
 * A holding. `quantity`, `cost_basis` (moving average: the cost of the held quantity, buying fees
 * included) and `realized_profit` are derived from the trades (replayed in `traded_at, id` order by
 * `@nestegg/domain`) and rewritten in the transaction of every trade write.
 */
export const investmentHolding = pgTable(
  'investment_holding',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Code used for the automatic quote lookup (upper case). */
    stockCode: text('stock_code'),
    /** Currency of its prices and quotes; null = local currency. */
    currency: char('currency', { length: 3 }),
    quantity: quantity('quantity').notNull().default('0'),
    costBasis: amount('cost_basis').notNull().default('0'),
    realizedProfit: amount('realized_profit').notNull().default('0'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'investment_holding_pk', columns: [t.memberId, t.id] }),
    check('investment_holding_quantity_non_negative', sql`${t.quantity} >= 0`),
    check('investment_holding_cost_basis_non_negative', sql`${t.costBasis} >= 0`),
  ],
);

export const investmentTrade = pgTable(
  'investment_trade',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    holdingId: integer('holding_id').notNull(),
    side: tradeSide('side').notNull(),
    quantity: quantity('quantity').notNull(),
    /** Unit price in the holding's currency. */
    price: price('price').notNull(),
    fee: price('fee').notNull().default('0'),
    tradedAt: date('traded_at', { mode: 'string' }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'investment_trade_pk', columns: [t.memberId, t.id] }),
    foreignKey({
      name: 'investment_trade_holding_fk',
      columns: [t.memberId, t.holdingId],
      foreignColumns: [investmentHolding.memberId, investmentHolding.id],
    }).onDelete('cascade'),
    index('investment_trade_member_replay_idx').on(t.memberId, t.holdingId, t.tradedAt, t.id),
    index('investment_trade_member_date_idx').on(t.memberId, t.tradedAt, t.id),
    check('investment_trade_quantity_positive', sql`${t.quantity} > 0`),
    check('investment_trade_price_non_negative', sql`${t.price} >= 0`),
    check('investment_trade_fee_non_negative', sql`${t.fee} >= 0`),
  ],
);

/**
 * Last known quote per stock code, shared by every member and api replica (not member-owned, like
 * `fx_rate`). `attempted_at` is the claim: a caller refreshes a code only after winning
 * `attempted_at < now − window`, so the provider is asked at most once per code and window.
 */
export const stockQuote = pgTable(
  'stock_quote',
  {
    code: text('code').primaryKey(),
    /** Null: never answered, or the provider does not know the code (then `fetched_at` is set). */
    price: price('price'),
    /** When the provider last answered for this code. */
    fetchedAt: instant('fetched_at'),
    /** When a caller last claimed a refresh. */
    attemptedAt: instant('attempted_at').notNull(),
  },
  (t) => [check('stock_quote_price_non_negative', sql`${t.price} >= 0`)],
);

export type InvestmentHolding = typeof investmentHolding.$inferSelect;
export type NewInvestmentHolding = typeof investmentHolding.$inferInsert;
export type InvestmentTrade = typeof investmentTrade.$inferSelect;
export type NewInvestmentTrade = typeof investmentTrade.$inferInsert;
export type StockQuote = typeof stockQuote.$inferSelect;
