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

export const ProductSchema = z.object({
  id: text().describe('Store product id'),
  period: BillingPeriodSchema,
  price: NonNegativeMoneySchema.describe('Price in whole units of `currency`'),
  currency: CurrencySchema,
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
 * The state of the member's current subscription: the one that grants PREMIUM, else the newest purchase.
 * `NONE`: no purchase (or PREMIUM set by an admin). `PENDING`: the payment is not complete; nothing is
 * granted yet. `ACTIVE`, `IN_GRACE` (a renewal payment failed, the store retries, PREMIUM stays),
 * `CANCELED` (auto-renew off, PREMIUM until the expiry) grant PREMIUM; `ON_HOLD`, `PAUSED`, `EXPIRED` and
 * `REVOKED` (refunded or charged back) do not.
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

export const SubscriptionSchema = z.object({
  plan: PlanSchema,
  planExpiresAt: InstantSchema.nullable().describe('null: free, or premium set by an admin (no expiry)'),
  nextBillingDate: InstantSchema.nullable().describe(
    'Next renewal; null when auto-renew is off or there is no subscription',
  ),
  autoRenew: z.boolean(),
  productId: text().nullable(),
  state: SubscriptionStateSchema,
});
export type Subscription = z.infer<typeof SubscriptionSchema>;

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
 * The store has no call to undo a cancellation: the member resumes the subscription in the store (a
 * notification follows and the subscription turns auto-renewing here). Open `manageUrl`.
 */
export const StoreActionSchema = z.object({
  action: z.literal('MANAGE_IN_STORE'),
  reason: z.literal('RESUME_IN_STORE'),
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
          'Cancels the renewal in the store for a real purchase (a test-mode purchase is flipped here). Idempotent. 409 `NO_SUBSCRIPTION` without a subscription that grants PREMIUM.',
        body: c.noBody(),
        responses: {
          200: SubscriptionSchema,
          ...problems('NO_SUBSCRIPTION', 'INVALID_PURCHASE', 'NOT_FOUND', 'STORE_NOT_CONFIGURED', 'STORE_UNAVAILABLE'),
        },
        metadata: meta('login'),
      },
      resume: {
        method: 'POST',
        path: '/api/billing/resume',
        summary: 'Resume auto-renewal',
        description:
          '200: auto-renewal is on (test-mode purchases are flipped here). 202: a store purchase is resumed by the member in the store (`manageUrl`); its notification then turns auto-renew on. 409 `NO_SUBSCRIPTION` without a subscription that grants PREMIUM.',
        body: c.noBody(),
        responses: { 200: SubscriptionSchema, 202: StoreActionSchema, ...problems('NO_SUBSCRIPTION', 'NOT_FOUND') },
        metadata: meta('login'),
      },
      restore: {
        method: 'POST',
        path: '/api/billing/restore',
        summary: 'Restore membership from the latest purchase (device change, reinstall)',
        description:
          'Re-verifies the latest purchase with the store (a test-mode purchase without it). 404 `NO_PURCHASE` when the member has none. ' +
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
};
