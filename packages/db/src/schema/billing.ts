import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgEnum, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { createdAt, instant, updatedAt } from './_common';
import { member } from './members';

/** The store a purchase was made in (decision BL23). */
export const purchaseStore = pgEnum('purchase_store', ['GOOGLE_PLAY', 'APP_STORE']);
export type PurchaseStore = (typeof purchaseStore.enumValues)[number];

/**
 * A store purchase's state as the store last reported it (Google Play's `SubscriptionState`, plus
 * REVOKED for a purchase the store voided: refund or chargeback).
 */
export const purchaseState = pgEnum('purchase_state', [
  'PENDING',
  'ACTIVE',
  'CANCELED',
  'IN_GRACE',
  'ON_HOLD',
  'PAUSED',
  'EXPIRED',
  'REVOKED',
]);
export type PurchaseState = (typeof purchaseState.enumValues)[number];

/**
 * A verified store purchase; `(store, purchase_token)` is unique so a purchase is applied once. The key is
 * Google Play's purchase token, or the App Store's original transaction id (one per subscription, kept across
 * renewals, upgrades and downgrades in its group).
 */
export const iapPurchase = pgTable(
  'iap_purchase',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    store: purchaseStore('store').notNull().default('GOOGLE_PLAY'),
    /** The catalog's product id (`BILLING_PRODUCTS`), whatever the store calls it. */
    productId: text('product_id').notNull(),
    purchaseToken: text('purchase_token').notNull(),
    orderId: text('order_id'),
    /** Expiry the purchase grants (null when unknown). */
    expiresAt: instant('expires_at'),
    /** Verification answer or request as received. */
    raw: jsonb('raw'),
    state: purchaseState('state').notNull().default('PENDING'),
    autoRenew: boolean('auto_renew').notNull().default(false),
    /** The purchase this one replaced (upgrade, downgrade, re-signup), as the store links them. */
    linkedPurchaseToken: text('linked_purchase_token'),
    /** A later purchase replaced this one: it grants nothing any more. */
    supersededAt: instant('superseded_at'),
    /** The store voided it (refund, chargeback): revoked at once. */
    voidedAt: instant('voided_at'),
    /** The store confirmed our acknowledgement (an unacknowledged purchase is refunded after 3 days). */
    acknowledgedAt: instant('acknowledged_at'),
    /** A test-mode purchase (`test-…` token, or an Xcode-signed transaction), never seen by the store. */
    test: boolean('test').notNull().default(false),
    /** Bought in the store's sandbox (App Store: `environment` Sandbox); grants only where allowed (decision BL25). */
    sandbox: boolean('sandbox').notNull().default(false),
    /** Last time the store's state was read for this purchase. */
    checkedAt: instant('checked_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('iap_purchase_store_token_uq').on(t.store, t.purchaseToken),
    index('iap_purchase_member_created_idx').on(t.memberId, t.createdAt),
    index('iap_purchase_unacknowledged_idx')
      .on(t.createdAt)
      .where(sql`${t.acknowledgedAt} is null and not ${t.test} and ${t.state} <> 'PENDING'`),
  ],
);

export const storeNotificationStatus = pgEnum('store_notification_status', [
  /** Stored, not yet handed to the job engine. */
  'RECEIVED',
  /** A job processes it. */
  'DISPATCHED',
  'PROCESSED',
  /** Not processable (malformed, another app's package): kept with its error, never retried. */
  'REJECTED',
  /** About a purchase no member holds (yet): kept and reported; a later verify of the token settles it. */
  'UNMATCHED',
  /** Every retry failed: kept with its last error. */
  'FAILED',
]);
export type StoreNotificationStatus = (typeof storeNotificationStatus.enumValues)[number];

export const storeNotificationKind = pgEnum('store_notification_kind', [
  'SUBSCRIPTION',
  'VOIDED_PURCHASE',
  'ONE_TIME_PRODUCT',
  'TEST',
]);
export type StoreNotificationKind = (typeof storeNotificationKind.enumValues)[number];

/**
 * Inbox of both stores' notifications, de-duplicated by the store's message id: Google's Pub/Sub `messageId`,
 * Apple's `notificationUUID`.
 */
export const storeNotification = pgTable(
  'store_notification',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    store: purchaseStore('store').notNull().default('GOOGLE_PLAY'),
    messageId: text('message_id').notNull(),
    payload: jsonb('payload').notNull(),
    receivedAt: instant('received_at').notNull().defaultNow(),
    processedAt: instant('processed_at'),
    error: text('error'),
    /** Null when the inner payload could not be read. */
    kind: storeNotificationKind('kind'),
    /** `subscriptionNotification.notificationType` (1–13, 19, 20, …); null for the App Store's. */
    notificationType: integer('notification_type'),
    /** The App Store's `notificationType`, with `:subtype` when there is one (e.g. `DID_FAIL_TO_RENEW:GRACE_PERIOD`). */
    event: text('event'),
    purchaseToken: text('purchase_token'),
    status: storeNotificationStatus('status').notNull().default('RECEIVED'),
    /** What processing did, e.g. `APPLIED`, `TEST`, `NOT_A_PREMIUM_PRODUCT`. */
    outcome: text('outcome'),
    attempts: integer('attempts').notNull().default(0),
    dispatchedAt: instant('dispatched_at'),
  },
  (t) => [
    unique('store_notification_store_message_uq').on(t.store, t.messageId),
    index('store_notification_received_idx').on(t.id).where(sql`${t.status} = 'RECEIVED'`),
    index('store_notification_unmatched_idx').on(t.purchaseToken).where(sql`${t.status} = 'UNMATCHED'`),
  ],
);

/**
 * Store subscriptions of members who withdrew: the purchase rows are deleted with the member (spec rule 5),
 * this row keeps only what the store call needs until the store confirmed it, and afterwards that the
 * purchase's notifications belong to a withdrawn member. App Store rows are done at once: Apple has no call
 * to cancel (decision BL30).
 */
export const storeCancellation = pgTable(
  'store_cancellation',
  {
    store: purchaseStore('store').notNull().default('GOOGLE_PLAY'),
    purchaseToken: text('purchase_token').notNull(),
    productId: text('product_id').notNull(),
    requestedAt: instant('requested_at').notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    doneAt: instant('done_at'),
  },
  (t) => [
    primaryKey({ name: 'store_cancellation_pk', columns: [t.store, t.purchaseToken] }),
    index('store_cancellation_pending_idx').on(t.requestedAt).where(sql`${t.doneAt} is null`),
  ],
);

export type IapPurchase = typeof iapPurchase.$inferSelect;
export type NewIapPurchase = typeof iapPurchase.$inferInsert;
export type StoreNotification = typeof storeNotification.$inferSelect;
export type NewStoreNotification = typeof storeNotification.$inferInsert;
export type StoreCancellation = typeof storeCancellation.$inferSelect;
