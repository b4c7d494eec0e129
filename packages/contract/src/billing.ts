/** Membership area: products, store purchase verification, subscription state, store notifications. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CurrencySchema,
  errorResponses,
  InstantSchema,
  meta,
  NonNegativeMoneySchema,
  PlanSchema,
  routerOptions,
} from './common.js';
import type { NamedSchemas } from './schema-names.js';
import { text } from './text.js';

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
  productId: text().trim().min(1).max(200),
  purchaseToken: text().min(1).max(4096),
  orderId: text().max(200).optional(),
  packageName: text().max(200).optional(),
});
export type VerifyPurchaseRequest = z.infer<typeof VerifyPurchaseRequestSchema>;

export const SubscriptionSchema = z.object({
  plan: PlanSchema,
  planExpiresAt: InstantSchema.nullable().describe('null: free, or premium set by an admin (no expiry)'),
  nextBillingDate: InstantSchema.nullable().describe(
    'Next renewal; null when auto-renew is off or there is no subscription',
  ),
  autoRenew: z.boolean(),
  productId: text().nullable(),
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

export const billingContract = c.router(
  {
    products: {
      method: 'GET',
      path: '/api/billing/products',
      summary: 'Subscription products (monthly, yearly)',
      responses: { 200: ProductListSchema, ...errorResponses(401) },
      metadata: meta('login'),
    },
    verify: {
      method: 'POST',
      path: '/api/billing/store/verify',
      summary: 'Verify a store purchase; grants or extends PREMIUM (idempotent per purchase token)',
      body: VerifyPurchaseRequestSchema,
      responses: { 200: SubscriptionSchema, ...errorResponses(400, 401, 409, 413, 415) },
      metadata: meta('login'),
    },
    subscription: {
      method: 'GET',
      path: '/api/billing/subscription',
      summary: 'Plan, expiry, next billing date, auto-renew',
      responses: { 200: SubscriptionSchema, ...errorResponses(401) },
      metadata: meta('login'),
    },
    cancel: {
      method: 'POST',
      path: '/api/billing/cancel',
      summary: 'Stop auto-renewal (premium stays until expiry)',
      body: c.noBody(),
      responses: { 200: SubscriptionSchema, ...errorResponses(401, 409) },
      metadata: meta('login'),
    },
    resume: {
      method: 'POST',
      path: '/api/billing/resume',
      summary: 'Resume auto-renewal',
      body: c.noBody(),
      responses: { 200: SubscriptionSchema, ...errorResponses(401, 409) },
      metadata: meta('login'),
    },
    restore: {
      method: 'POST',
      path: '/api/billing/restore',
      summary: 'Restore membership from the latest purchase (device change, reinstall)',
      body: c.noBody(),
      responses: { 200: SubscriptionSchema, ...errorResponses(401, 404) },
      metadata: meta('login'),
    },
    storeNotification: {
      method: 'POST',
      path: '/api/billing/store/rtdn',
      summary: 'Real-time notification from the store (push endpoint, no login)',
      body: StoreNotificationRequestSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 413, 415) },
      metadata: meta('public'),
    },
  },
  routerOptions,
);

/** Component names of the billing area (see schema-names.ts). */
export const billingNamedSchemas: NamedSchemas = {
  Product: ProductSchema,
  ProductList: ProductListSchema,
  Subscription: SubscriptionSchema,
  BillingPeriod: BillingPeriodSchema,
};
