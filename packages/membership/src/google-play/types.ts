/**
 * The Google Play Developer API v3 shapes we read (androidpublisher): `purchases.subscriptionsv2`,
 * `purchases.voidedpurchases.list`, the OAuth token answer, and the real-time developer notification
 * (RTDN) carried by a Pub/Sub push. Unknown fields are kept; only what we act on is required.
 */
import { z } from 'zod';

/** `SubscriptionPurchaseV2.subscriptionState`. */
export const SUBSCRIPTION_STATES = [
  'SUBSCRIPTION_STATE_UNSPECIFIED',
  'SUBSCRIPTION_STATE_PENDING',
  'SUBSCRIPTION_STATE_ACTIVE',
  'SUBSCRIPTION_STATE_PAUSED',
  'SUBSCRIPTION_STATE_IN_GRACE_PERIOD',
  'SUBSCRIPTION_STATE_ON_HOLD',
  'SUBSCRIPTION_STATE_CANCELED',
  'SUBSCRIPTION_STATE_EXPIRED',
  'SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED',
] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];

export const ACKNOWLEDGEMENT_STATES = [
  'ACKNOWLEDGEMENT_STATE_UNSPECIFIED',
  'ACKNOWLEDGEMENT_STATE_PENDING',
  'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
] as const;
export type AcknowledgementState = (typeof ACKNOWLEDGEMENT_STATES)[number];

export const SubscriptionLineItemSchema = z
  .object({
    productId: z.string().min(1),
    /** RFC 3339; the end of the paid (or grace) period. */
    expiryTime: z.string().datetime({ offset: true }).optional(),
    autoRenewingPlan: z.object({ autoRenewEnabled: z.boolean().optional() }).passthrough().optional(),
    prepaidPlan: z.object({}).passthrough().optional(),
    latestSuccessfulOrderId: z.string().optional(),
  })
  .passthrough();
export type SubscriptionLineItem = z.infer<typeof SubscriptionLineItemSchema>;

export const SubscriptionPurchaseV2Schema = z
  .object({
    kind: z.string().optional(),
    regionCode: z.string().optional(),
    lineItems: z.array(SubscriptionLineItemSchema).default([]),
    startTime: z.string().optional(),
    subscriptionState: z.enum(SUBSCRIPTION_STATES),
    /** Deprecated by Google in favour of `lineItems[].latestSuccessfulOrderId`, still sent. */
    latestOrderId: z.string().optional(),
    /** Set for an upgrade, a downgrade, or a re-signup of a cancelled subscription: the replaced purchase. */
    linkedPurchaseToken: z.string().optional(),
    acknowledgementState: z.enum(ACKNOWLEDGEMENT_STATES).optional(),
    testPurchase: z.object({}).passthrough().optional(),
    externalAccountIdentifiers: z.object({}).passthrough().optional(),
  })
  .passthrough();
export type SubscriptionPurchaseV2 = z.infer<typeof SubscriptionPurchaseV2Schema>;

/** One entry of `purchases.voidedpurchases.list` (`androidpublisher#voidedPurchase`). */
export const VoidedPurchaseSchema = z
  .object({
    kind: z.string().optional(),
    purchaseToken: z.string().min(1),
    purchaseTimeMillis: z.string().optional(),
    voidedTimeMillis: z.string().regex(/^\d+$/).optional(),
    orderId: z.string().optional(),
    /** 0 user, 1 developer, 2 Google. */
    voidedSource: z.number().int().optional(),
    /** 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud, 6 friendly fraud, 7 chargeback. */
    voidedReason: z.number().int().optional(),
    /** 1 full refund, 2 quantity-based partial refund. */
    refundType: z.number().int().optional(),
  })
  .passthrough();
export type VoidedPurchase = z.infer<typeof VoidedPurchaseSchema>;

export const VoidedPurchasesListSchema = z
  .object({
    voidedPurchases: z.array(VoidedPurchaseSchema).default([]),
    tokenPagination: z.object({ nextPageToken: z.string().optional() }).passthrough().optional(),
    pageInfo: z.object({}).passthrough().optional(),
  })
  .passthrough();

export const AccessTokenResponseSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  token_type: z.string().optional(),
});

/** `subscriptionNotification.notificationType`: what changed (the state itself is read from the API). */
export const SUBSCRIPTION_NOTIFICATION_TYPES: Readonly<Record<number, string>> = {
  1: 'SUBSCRIPTION_RECOVERED',
  2: 'SUBSCRIPTION_RENEWED',
  3: 'SUBSCRIPTION_CANCELED',
  4: 'SUBSCRIPTION_PURCHASED',
  5: 'SUBSCRIPTION_ON_HOLD',
  6: 'SUBSCRIPTION_IN_GRACE_PERIOD',
  7: 'SUBSCRIPTION_RESTARTED',
  8: 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED',
  9: 'SUBSCRIPTION_DEFERRED',
  10: 'SUBSCRIPTION_PAUSED',
  11: 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED',
  12: 'SUBSCRIPTION_REVOKED',
  13: 'SUBSCRIPTION_EXPIRED',
  17: 'SUBSCRIPTION_ITEMS_CHANGED',
  19: 'SUBSCRIPTION_PRICE_CHANGE_UPDATED',
  20: 'SUBSCRIPTION_PENDING_PURCHASE_CANCELED',
};

/** The decoded `message.data` of a push: a `DeveloperNotification`. */
export const DeveloperNotificationSchema = z
  .object({
    version: z.string(),
    packageName: z.string().min(1),
    eventTimeMillis: z.union([z.string().regex(/^\d+$/), z.number().int()]),
    subscriptionNotification: z
      .object({
        version: z.string(),
        notificationType: z.number().int().positive(),
        purchaseToken: z.string().min(1).max(4096),
        subscriptionId: z.string().optional(),
      })
      .passthrough()
      .optional(),
    oneTimeProductNotification: z
      .object({
        version: z.string(),
        notificationType: z.number().int().positive(),
        purchaseToken: z.string().min(1).max(4096),
        sku: z.string().optional(),
      })
      .passthrough()
      .optional(),
    voidedPurchaseNotification: z
      .object({
        purchaseToken: z.string().min(1).max(4096),
        orderId: z.string().optional(),
        /** 1 subscription, 2 one-time product. */
        productType: z.number().int(),
        refundType: z.number().int().optional(),
      })
      .passthrough()
      .optional(),
    testNotification: z.object({ version: z.string() }).passthrough().optional(),
  })
  .passthrough();
export type DeveloperNotification = z.infer<typeof DeveloperNotificationSchema>;

export const VOIDED_PRODUCT_TYPE_SUBSCRIPTION = 1;
