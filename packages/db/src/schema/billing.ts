import { relations, sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, instant } from './_common';
import { member } from './members';

/** A verified store purchase; `purchase_token` is unique so a purchase is applied once. */
export const iapPurchase = pgTable(
  'iap_purchase',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    productId: text('product_id').notNull(),
    purchaseToken: text('purchase_token').notNull().unique('iap_purchase_purchase_token_uq'),
    orderId: text('order_id'),
    /** Expiry the purchase grants (null when unknown). */
    expiresAt: instant('expires_at'),
    /** Verification answer or request as received. */
    raw: jsonb('raw'),
    createdAt: createdAt(),
  },
  (t) => [index('iap_purchase_member_created_idx').on(t.memberId, t.createdAt)],
);

/** Inbox of the store's real-time notifications (de-duplicated by the message id). */
export const storeNotification = pgTable(
  'store_notification',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    messageId: text('message_id').notNull().unique('store_notification_message_id_uq'),
    payload: jsonb('payload').notNull(),
    receivedAt: instant('received_at').notNull().defaultNow(),
    processedAt: instant('processed_at'),
    error: text('error'),
  },
  (t) => [index('store_notification_unprocessed_idx').on(t.receivedAt).where(sql`${t.processedAt} is null`)],
);

export const iapPurchaseRelations = relations(iapPurchase, ({ one }) => ({
  member: one(member, { fields: [iapPurchase.memberId], references: [member.id] }),
}));

export type IapPurchase = typeof iapPurchase.$inferSelect;
export type NewIapPurchase = typeof iapPurchase.$inferInsert;
export type StoreNotification = typeof storeNotification.$inferSelect;
export type NewStoreNotification = typeof storeNotification.$inferInsert;
