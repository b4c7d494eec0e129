/** Shared by the billing tests: products, the live session's plan, the rows behind a subscription. */
import { iapPurchase, member, storeNotification } from '@nestegg/db';
import type { FakeAppStore, FakeGooglePlay } from '@nestegg/membership/testing';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** Both stores: Google Play's ids are the catalog's, the App Store's are named. */
export const PRODUCTS =
  'premium_monthly:MONTHLY:4900:KRW:appstore=app.nestegg.premium.monthly,premium_yearly:YEARLY:49000:KRW:appstore=app.nestegg.premium.yearly';
export const APPLE_MONTHLY = 'app.nestegg.premium.monthly';
export const APPLE_YEARLY = 'app.nestegg.premium.yearly';

/** The environment of an api talking to the fake store (Developer API and push). */
export const storeEnvironment = (store: FakeGooglePlay) => ({
  ...store.env(),
  ...store.pushEnv(),
  BILLING_PRODUCTS: PRODUCTS,
});

/** The environment of an api talking to both fakes: Google Play (Developer API and push) and the App Store. */
export const bothStoresEnvironment = (store: FakeGooglePlay, appStore: FakeAppStore) => ({
  ...storeEnvironment(store),
  ...appStore.env(),
});

interface WithToken {
  token: string;
}

/**
 * What the caller's live session says, through the same path as every request (Redis copy or backup):
 * a premium-only route answers 200 for PREMIUM, 403 PREMIUM_REQUIRED for FREE.
 */
export async function sessionPlan(app: FastifyInstance, caller: WithToken): Promise<'PREMIUM' | 'FREE'> {
  const response = await app.inject({
    method: 'GET',
    url: '/api/account/tags',
    headers: { authorization: `Bearer ${caller.token}` },
  });
  if (response.statusCode === 200) return 'PREMIUM';
  expect(response.json()).toMatchObject({ code: 'PREMIUM_REQUIRED' });
  return 'FREE';
}

/** Polls until the live session shows `plan` (a change made by the worker reaches the api through the outbox). */
export async function waitForSessionPlan(
  app: FastifyInstance,
  caller: WithToken,
  plan: 'PREMIUM' | 'FREE',
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await sessionPlan(app, caller)) === plan) return;
    if (Date.now() > deadline) throw new Error(`the session did not turn ${plan} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function memberRow(app: FastifyInstance, memberId: number) {
  const [row] = await app.db.select().from(member).where(eq(member.id, memberId));
  return row!;
}

export async function purchaseRows(app: FastifyInstance, purchaseToken: string) {
  return app.db.select().from(iapPurchase).where(eq(iapPurchase.purchaseToken, purchaseToken));
}

export async function inboxRow(app: FastifyInstance, messageId: string) {
  const [row] = await app.db.select().from(storeNotification).where(eq(storeNotification.messageId, messageId));
  return row;
}

/** Waits until `probe` returns something other than undefined. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
