import { iapPurchase } from '@nestegg/db';
import { FakeGooglePlay } from '@nestegg/membership/testing';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';
import { memberRow, purchaseRows, sessionPlan, storeEnvironment, waitForSessionPlan } from './billing.fixture.js';

const store = await FakeGooglePlay.start();
afterAll(() => store.close());

const test = apiTest(storeEnvironment(store));
const DAY = 86_400_000;

async function subscribed(caller: Caller, productId = 'premium_monthly') {
  const token = store.subscribe(productId, { expiryTime: new Date(Date.now() + 20 * DAY) });
  bodyOf(await caller.api.billing.verify({ body: { productId, purchaseToken: token } }), 200);
  return token;
}

describe('POST /api/billing/cancel', () => {
  test('stops the renewal in the store and keeps PREMIUM until the expiry', async ({ app, free }) => {
    const token = await subscribed(free);
    const cancelled = bodyOf(await free.api.billing.cancel(), 200);
    expect(cancelled).toMatchObject({ plan: 'PREMIUM', autoRenew: false, nextBillingDate: null, state: 'CANCELED' });
    expect(store.calls.cancellations).toContain(token);
    expect(store.subscriptions.get(token)).toMatchObject({ state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false });
    expect(await sessionPlan(app, free)).toBe('PREMIUM');
    expect(await memberRow(app, free.id)).toMatchObject({ plan: 'PREMIUM', planAutoRenew: false });

    // Idempotent: no second store call.
    bodyOf(await free.api.billing.cancel(), 200);
    expect(store.calls.cancellations.filter((cancelledToken) => cancelledToken === token)).toHaveLength(1);
  });

  test('without a subscription that grants PREMIUM: 409', async ({ free, premium }) => {
    problemOf(await free.api.billing.cancel(), 409, 'NO_SUBSCRIPTION');
    // An admin's permanent PREMIUM is not a store subscription either.
    problemOf(await premium.api.billing.cancel(), 409, 'NO_SUBSCRIPTION');
  });

  test('an unreachable store: 503, auto-renew unchanged', async ({ app, free }) => {
    await subscribed(free);
    store.outage = 500;
    try {
      problemOf(await free.api.billing.cancel(), 503, 'STORE_UNAVAILABLE');
    } finally {
      store.outage = null;
    }
    expect(await memberRow(app, free.id)).toMatchObject({ planAutoRenew: true });
  });
});

describe('POST /api/billing/resume', () => {
  test("a store purchase is resumed in the store: 202 with the store's manage page, nothing flipped here", async ({
    app,
    free,
  }) => {
    await subscribed(free);
    bodyOf(await free.api.billing.cancel(), 200);
    const answer = bodyOf(await free.api.billing.resume(), 202);
    expect(answer).toMatchObject({
      action: 'MANAGE_IN_STORE',
      reason: 'RESUME_IN_STORE',
      subscription: { plan: 'PREMIUM', autoRenew: false, state: 'CANCELED' },
    });
    const url = new URL(answer.manageUrl);
    expect(`${url.origin}${url.pathname}`).toBe('https://play.google.com/store/account/subscriptions');
    expect(Object.fromEntries(url.searchParams)).toEqual({ sku: 'premium_monthly', package: store.packageName });
    expect(await memberRow(app, free.id)).toMatchObject({ planAutoRenew: false });
  });

  test('already auto-renewing: 200 as it is; no subscription: 409', async ({ free, other }) => {
    await subscribed(free);
    expect(bodyOf(await free.api.billing.resume(), 200)).toMatchObject({ autoRenew: true, state: 'ACTIVE' });
    problemOf(await other.api.billing.resume(), 409, 'NO_SUBSCRIPTION');
  });
});

describe('POST /api/billing/restore', () => {
  test('re-verifies the latest purchase with the store (device change): lost PREMIUM comes back', async ({
    app,
    free,
  }) => {
    const token = await subscribed(free);
    // Our copy drifted (e.g. a notification was lost while the store renewed the subscription).
    const renewedUntil = new Date(Date.now() + 50 * DAY);
    store.update(token, { expiryTime: renewedUntil });
    await app.db.update(iapPurchase).set({ state: 'EXPIRED' }).where(eq(iapPurchase.purchaseToken, token));
    await app.services.membership.settleOnly(free.id);
    await waitForSessionPlan(app, free, 'FREE');
    const restored = bodyOf(await free.api.billing.restore(), 200);
    expect(restored).toMatchObject({ plan: 'PREMIUM', planExpiresAt: renewedUntil.toISOString(), state: 'ACTIVE' });
    expect(await sessionPlan(app, free)).toBe('PREMIUM');
    expect(store.calls.gets.filter((asked) => asked === token).length).toBeGreaterThanOrEqual(2);
  });

  test('what the store says wins: an expired subscription restores nothing', async ({ app, free }) => {
    const token = await subscribed(free);
    store.update(token, {
      state: 'SUBSCRIPTION_STATE_EXPIRED',
      autoRenew: false,
      expiryTime: new Date(Date.now() - DAY),
    });
    expect(bodyOf(await free.api.billing.restore(), 200)).toMatchObject({ plan: 'FREE', state: 'EXPIRED' });
    expect(await sessionPlan(app, free)).toBe('FREE');
    expect((await purchaseRows(app, token))[0]).toMatchObject({ state: 'EXPIRED' });
  });

  test('without any purchase: 404', async ({ free }) => {
    problemOf(await free.api.billing.restore(), 404, 'NO_PURCHASE');
  });
});
