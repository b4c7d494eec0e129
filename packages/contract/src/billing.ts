/** Membership area: products, store purchase verification, subscription state, store notifications. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CurrencySchema,
  InstantSchema,
  meta,
  NonNegativeMoneySchema,
  PlanSchema,
  problems,
  routerOptions,
  withCommonProblems,
} from './common.js';
import type { NamedSchemas } from './schema-names.js';
import { nonBlankText, text } from './text.js';

const c = initContract();

export const BillingPeriodSchema = z.enum(['MONTHLY', 'YEARLY']);
export type BillingPeriod = z.infer<typeof BillingPeriodSchema>;

/** The stores memberships are sold in. */
export const StoreSchema = z.enum(['GOOGLE_PLAY', 'APP_STORE']);
export type Store = z.infer<typeof StoreSchema>;

export const StoreProductIdsSchema = z.object({
  googlePlay: text().describe("The product's id in Google Play (what the Android app buys)"),
  appStore: text().describe("The product's id in the App Store (what the iOS app buys)"),
});
export type StoreProductIds = z.infer<typeof StoreProductIdsSchema>;

export const ProductSchema = z.object({
  id: text().describe('Product id (the plan names it, whichever store sold it)'),
  period: BillingPeriodSchema,
  price: NonNegativeMoneySchema.describe('Price in whole units of `currency`'),
  currency: CurrencySchema,
  storeProductIds: StoreProductIdsSchema,
});
export type Product = z.infer<typeof ProductSchema>;
export const ProductListSchema = z.object({ products: z.array(ProductSchema) });
export type ProductList = z.infer<typeof ProductListSchema>;

export const VerifyPurchaseRequestSchema = z.object({
  productId: nonBlankText().max(200),
  purchaseToken: text().min(1).max(4096),
  orderId: text().max(200).optional(),
  packageName: text().max(200).optional(),
});
export type VerifyPurchaseRequest = z.infer<typeof VerifyPurchaseRequestSchema>;

/**
 * The state of a subscription, one model for both stores: the member's current subscription is the one that
 * grants PREMIUM, else the newest purchase. `NONE`: no purchase (or PREMIUM set by an admin). `PENDING`: the
 * payment is not complete; nothing is granted yet. `ACTIVE`, `IN_GRACE` (a renewal payment failed, the store
 * retries, PREMIUM stays), `CANCELED` (auto-renew off, PREMIUM until the expiry) grant PREMIUM; `ON_HOLD`
 * (billing retry after the grace period: the store still tries to charge; tell the member to fix the payment),
 * `PAUSED`, `EXPIRED` and `REVOKED` (refunded, charged back, or withdrawn from Family Sharing) do not.
 */
export const SubscriptionStateSchema = z.enum([
  'NONE',
  'PENDING',
  'ACTIVE',
  'IN_GRACE',
  'CANCELED',
  'ON_HOLD',
  'PAUSED',
  'EXPIRED',
  'REVOKED',
]);
export type SubscriptionState = z.infer<typeof SubscriptionStateSchema>;

/** One purchase of the member's, in one store: what it grants and where it is managed. */
export const StorePurchaseSchema = z.object({
  store: StoreSchema,
  productId: text(),
  state: SubscriptionStateSchema,
  expiresAt: InstantSchema.nullable(),
  autoRenew: z.boolean(),
  grantsPremium: z.boolean().describe('Whether this purchase grants PREMIUM now'),
  sandbox: z.boolean().describe("Bought in the store's sandbox (App Review, TestFlight)"),
  manageUrl: text()
    .url()
    .nullable()
    .describe("The store's page where the member manages it (null for a test purchase)"),
});
export type StorePurchase = z.infer<typeof StorePurchaseSchema>;

export const SubscriptionSchema = z.object({
  plan: PlanSchema,
  planExpiresAt: InstantSchema.nullable().describe('null: free, or premium set by an admin (no expiry)'),
  nextBillingDate: InstantSchema.nullable().describe(
    'Next renewal; null when auto-renew is off or there is no subscription',
  ),
  autoRenew: z.boolean(),
  productId: text().nullable(),
  state: SubscriptionStateSchema,
  store: StoreSchema.nullable().describe('The store of the purchase described (null: none, or an admin grant)'),
  manageUrl: text()
    .url()
    .nullable()
    .describe("Where the member manages that purchase: Google Play's page or the App Store's"),
  purchases: z
    .array(StorePurchaseSchema)
    .describe(
      "The member's purchases still in play, in every store, longest-granting first: two renewing in two stores means the member pays twice (cancel one in its store)",
    ),
});
export type Subscription = z.infer<typeof SubscriptionSchema>;

/** The member's stable UUID for the App Store. */
export const AppAccountTokenSchema = z.object({
  appAccountToken: z
    .string()
    .uuid()
    .describe(
      'Pass it as `appAccountToken` in the StoreKit purchase options: verify accepts a transaction only from the member it names',
    ),
});
export type AppAccountToken = z.infer<typeof AppAccountTokenSchema>;

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** A StoreKit 2 purchase: its signed transaction (`jwsRepresentation`), or its transaction id. */
export const AppStoreVerifyRequestSchema = z.object({
  signedTransaction: text()
    .min(1)
    .max(32_768)
    .regex(COMPACT_JWS, 'expected a compact JWS')
    .optional()
    .describe('The transaction as StoreKit 2 signed it (`Transaction.jwsRepresentation`)'),
  transactionId: text()
    .regex(/^[0-9]{1,32}$/, 'expected a transaction id')
    .optional()
    .describe('Or its id: the server reads it from the App Store'),
});
export type AppStoreVerifyRequest = z.infer<typeof AppStoreVerifyRequestSchema>;

/** App Store Server Notifications V2: the body Apple posts; fields Apple may add later are kept (decision C46). */
export const AppStoreNotificationRequestSchema = z
  .object({
    signedPayload: text()
      .min(1)
      .max(65_536)
      .regex(COMPACT_JWS, 'expected a compact JWS')
      .describe('The notification, signed by the App Store (JWS with its certificate chain)'),
  })
  .passthrough();
export type AppStoreNotificationRequest = z.infer<typeof AppStoreNotificationRequestSchema>;

/** The store's push envelope; unknown fields are kept. */
export const StoreNotificationRequestSchema = z
  .object({
    message: z
      .object({
        data: z
          .string()
          .regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'expected base64')
          .describe('Base64 notification JSON'),
        messageId: text().min(1).max(200),
        publishTime: text().optional(),
        attributes: z.record(text()).optional(),
      })
      .passthrough(),
    subscription: text().optional(),
  })
  .passthrough();
export type StoreNotificationRequest = z.infer<typeof StoreNotificationRequestSchema>;

/**
 * What the server cannot do for the member in the store: resume a cancelled subscription (neither store has
 * such a call), or stop an App Store subscription's renewal (Apple has none). The member does it in the store's
 * page (`manageUrl`); a notification follows and the subscription changes here.
 */
export const StoreActionSchema = z.object({
  action: z.literal('MANAGE_IN_STORE'),
  reason: z.enum(['RESUME_IN_STORE', 'CANCEL_IN_STORE']),
  store: StoreSchema,
  manageUrl: text().url(),
  subscription: SubscriptionSchema,
});
export type StoreAction = z.infer<typeof StoreActionSchema>;

const TEST_MODE =
  'Test mode (`BILLING_TEST_MODE=true`; on under `npm start` unless set, refused with `NODE_ENV=production` unless forced): ' +
  'a `purchaseToken` starting with `test-` is accepted without the store and grants one period of its product; any other ' +
  'token still goes to the store.';

export const billingContract = withCommonProblems(
  c.router(
    {
      products: {
        method: 'GET',
        path: '/api/billing/products',
        summary: 'Subscription products (monthly, yearly)',
        description:
          'The products of `BILLING_PRODUCTS`. Without it, `npm start` serves two sample products in test mode: ' +
          '`premium_monthly` (MONTHLY, 4,900 KRW) and `premium_yearly` (YEARLY, 49,000 KRW). ' +
          TEST_MODE,
        responses: { 200: ProductListSchema },
        metadata: meta('login'),
      },
      verify: {
        method: 'POST',
        path: '/api/billing/store/verify',
        summary: 'Verify a store purchase; grants or extends PREMIUM (idempotent per purchase token)',
        description:
          'Applied once per purchase token: the same token again answers the current subscription, from another member 409 `PURCHASE_OWNED_ELSEWHERE`. 202: the payment is still pending, nothing is granted yet (a store notification completes it). 400 `UNKNOWN_PRODUCT`, `INVALID_PURCHASE`, `PRODUCT_MISMATCH`; 503 `STORE_UNAVAILABLE`, `STORE_NOT_CONFIGURED`. ' +
          TEST_MODE,
        body: VerifyPurchaseRequestSchema,
        responses: {
          200: SubscriptionSchema,
          202: SubscriptionSchema,
          ...problems(
            'UNKNOWN_PRODUCT',
            'INVALID_PURCHASE',
            'PRODUCT_MISMATCH',
            'PURCHASE_OWNED_ELSEWHERE',
            'NOT_FOUND',
            'STORE_NOT_CONFIGURED',
            'STORE_UNAVAILABLE',
          ),
        },
        metadata: meta('login'),
      },
      subscription: {
        method: 'GET',
        path: '/api/billing/subscription',
        summary: 'Plan, expiry, next billing date, auto-renew',
        responses: { 200: SubscriptionSchema, ...problems('NOT_FOUND') },
        metadata: meta('login'),
      },
      cancel: {
        method: 'POST',
        path: '/api/billing/cancel',
        summary: 'Stop auto-renewal (premium stays until expiry)',
        description:
          'Stops the renewal of every subscription that grants PREMIUM, in either store: a Google Play purchase is cancelled in the store, a test-mode purchase is flipped here. 202: an App Store subscription still renews, and only the member can stop it in the App Store (`manageUrl`). Idempotent. 409 `NO_SUBSCRIPTION` without a subscription that grants PREMIUM.',
        body: c.noBody(),
        responses: {
          200: SubscriptionSchema,
          202: StoreActionSchema,
          ...problems('NO_SUBSCRIPTION', 'INVALID_PURCHASE', 'NOT_FOUND', 'STORE_NOT_CONFIGURED', 'STORE_UNAVAILABLE'),
        },
        metadata: meta('login'),
      },
      resume: {
        method: 'POST',
        path: '/api/billing/resume',
        summary: 'Resume auto-renewal',
        description:
          "200: auto-renewal is on (test-mode purchases are flipped here). 202: a store purchase is resumed by the member in its store (`manageUrl`: Google Play's page or the App Store's); its notification then turns auto-renew on. 409 `NO_SUBSCRIPTION` without a subscription that grants PREMIUM.",
        body: c.noBody(),
        responses: { 200: SubscriptionSchema, 202: StoreActionSchema, ...problems('NO_SUBSCRIPTION', 'NOT_FOUND') },
        metadata: meta('login'),
      },
      restore: {
        method: 'POST',
        path: '/api/billing/restore',
        summary: 'Restore membership from the latest purchase (device change, reinstall)',
        description:
          "Re-verifies the member's latest purchase in each store with that store (a test-mode purchase without it). 404 `NO_PURCHASE` when the member has none. " +
          TEST_MODE,
        body: c.noBody(),
        responses: {
          200: SubscriptionSchema,
          ...problems('NO_PURCHASE', 'NOT_FOUND', 'INVALID_PURCHASE', 'STORE_NOT_CONFIGURED', 'STORE_UNAVAILABLE'),
        },
        metadata: meta('login'),
      },
      storeNotification: {
        method: 'POST',
        path: '/api/billing/store/rtdn',
        summary: 'Real-time notification from the store (push endpoint, no login)',
        description:
          "Authenticated by the push service's signed token (`Authorization: Bearer`), else 401 `INVALID_PUSH_TOKEN`. Stored once per message id and processed by the billing worker; a payload that cannot be processed is kept with its error and still answered 204.",
        body: StoreNotificationRequestSchema,
        responses: { 204: c.noBody(), ...problems('INVALID_PUSH_TOKEN', 'STORE_NOT_CONFIGURED', 'STORE_UNAVAILABLE') },
        metadata: meta('public'),
      },
      appStoreAccountToken: {
        method: 'GET',
        path: '/api/billing/appstore/account-token',
        summary: "The member's appAccountToken for App Store purchases",
        description:
          'A UUID that stays the same for the member: the iOS app passes it in the purchase options (`appAccountToken`), Apple signs it into the transaction, and `appstore/verify` takes a transaction only from the member it names. 503 `STORE_NOT_CONFIGURED` without the App Store.',
        responses: { 200: AppAccountTokenSchema, ...problems('NOT_FOUND', 'STORE_NOT_CONFIGURED') },
        metadata: meta('login'),
      },
      appStoreVerify: {
        method: 'POST',
        path: '/api/billing/appstore/verify',
        summary: 'Verify an App Store purchase (StoreKit 2); grants or extends PREMIUM (idempotent per subscription)',
        description:
          "Send the signed transaction (`jwsRepresentation`) or its `transactionId`, one of them. The signature is verified to Apple's root; the transaction must carry the member's appAccountToken (else 400 `APP_ACCOUNT_TOKEN_MISMATCH`; a Family Sharing transaction carries none and needs none) and a product of `GET products` (400 `UNKNOWN_PRODUCT`); a forged or foreign transaction is 400 `INVALID_PURCHASE`. Applied once per original transaction from the App Store's current status: again by its owner answers the current subscription, by another member 409 `PURCHASE_OWNED_ELSEWHERE`. A sandbox purchase where sandbox purchases grant nothing: 403 `SANDBOX_NOT_ALLOWED`. 202: the subscription is in billing retry and grants nothing yet. 503 `STORE_UNAVAILABLE`, `STORE_NOT_CONFIGURED`.",
        body: AppStoreVerifyRequestSchema,
        responses: {
          200: SubscriptionSchema,
          202: SubscriptionSchema,
          ...problems(
            'UNKNOWN_PRODUCT',
            'INVALID_PURCHASE',
            'APP_ACCOUNT_TOKEN_MISMATCH',
            'SANDBOX_NOT_ALLOWED',
            'PURCHASE_OWNED_ELSEWHERE',
            'NOT_FOUND',
            'STORE_NOT_CONFIGURED',
            'STORE_UNAVAILABLE',
          ),
        },
        metadata: meta('login'),
      },
      appStoreNotification: {
        method: 'POST',
        path: '/api/billing/appstore/notifications',
        summary: 'App Store Server Notification V2 (no login)',
        description:
          "Apple's notifications, authenticated by their signature: the `signedPayload` and the transaction and renewal info inside it must verify to Apple's root, else 401 `INVALID_NOTIFICATION_SIGNATURE` and nothing is stored. Stored once per `notificationUUID` in the store notification inbox and applied by the billing worker from the App Store's current status; 200 at once. A verification that could not finish (certificate status) is 503 `STORE_UNAVAILABLE`, so Apple sends it again.",
        body: AppStoreNotificationRequestSchema,
        responses: {
          200: c.noBody(),
          ...problems('INVALID_NOTIFICATION_SIGNATURE', 'STORE_NOT_CONFIGURED', 'STORE_UNAVAILABLE'),
        },
        metadata: meta('public'),
      },
    },
    routerOptions,
  ),
);

/** Component names of the billing area (see schema-names.ts). */
export const billingNamedSchemas: NamedSchemas = {
  Product: ProductSchema,
  ProductList: ProductListSchema,
  Subscription: SubscriptionSchema,
  SubscriptionState: SubscriptionStateSchema,
  StoreAction: StoreActionSchema,
  BillingPeriod: BillingPeriodSchema,
  Store: StoreSchema,
  StoreProductIds: StoreProductIdsSchema,
  StorePurchase: StorePurchaseSchema,
  AppAccountToken: AppAccountTokenSchema,
};
