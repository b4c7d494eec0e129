import { relations, sql } from 'drizzle-orm';
import { bigint, char, check, date, index, integer, numeric, pgEnum, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, instant, updatedAt } from './_common';
import { member } from './members';

const money = (name: string) => bigint(name, { mode: 'number' });
/** Share quantity: exact decimal string, 6 fractional digits. */
const quantity = (name: string) => numeric(name, { precision: 18, scale: 6 });

export const tradeSide = pgEnum('trade_side', ['BUY', 'SELL']);
export type TradeSide = (typeof tradeSide.enumValues)[number];

/**
 * A holding. `quantity`, `average_price` (moving average, whole units) and `realized_profit` are
 * derived from the trades by the app (replayed in `traded_at, id` order) and cached here.
 */
export const investmentHolding = pgTable(
  'investment_holding',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Code used for the automatic quote lookup. */
    stockCode: text('stock_code'),
    /** Quote currency; null = local currency. */
    currency: char('currency', { length: 3 }),
    quantity: quantity('quantity').notNull().default('0'),
    averagePrice: money('average_price').notNull().default(0),
    realizedProfit: money('realized_profit').notNull().default(0),
    currentPrice: money('current_price'),
    priceUpdatedAt: instant('price_updated_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('investment_holding_member_idx').on(t.memberId),
    check('investment_holding_quantity_non_negative', sql`${t.quantity} >= 0`),
  ],
);

export const investmentTrade = pgTable(
  'investment_trade',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    holdingId: integer('holding_id')
      .notNull()
      .references(() => investmentHolding.id, { onDelete: 'cascade' }),
    side: tradeSide('side').notNull(),
    quantity: quantity('quantity').notNull(),
    /** Unit price in whole units. */
    price: money('price').notNull(),
    fee: money('fee').notNull().default(0),
    tradedAt: date('traded_at', { mode: 'string' }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('investment_trade_holding_replay_idx').on(t.holdingId, t.tradedAt, t.id),
    index('investment_trade_member_idx').on(t.memberId),
    check('investment_trade_quantity_positive', sql`${t.quantity} > 0`),
    check('investment_trade_price_non_negative', sql`${t.price} >= 0`),
    check('investment_trade_fee_non_negative', sql`${t.fee} >= 0`),
  ],
);

export const investmentHoldingRelations = relations(investmentHolding, ({ one, many }) => ({
  member: one(member, { fields: [investmentHolding.memberId], references: [member.id] }),
  trades: many(investmentTrade),
}));

export const investmentTradeRelations = relations(investmentTrade, ({ one }) => ({
  member: one(member, { fields: [investmentTrade.memberId], references: [member.id] }),
  holding: one(investmentHolding, { fields: [investmentTrade.holdingId], references: [investmentHolding.id] }),
}));

export type InvestmentHolding = typeof investmentHolding.$inferSelect;
export type NewInvestmentHolding = typeof investmentHolding.$inferInsert;
export type InvestmentTrade = typeof investmentTrade.$inferSelect;
export type NewInvestmentTrade = typeof investmentTrade.$inferInsert;
