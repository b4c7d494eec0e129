import { FakeGooglePlay } from '@nestegg/membership/testing';
import { afterAll, describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { memberRow, purchaseRows, sessionPlan, storeEnvironment } from './billing.fixture.js';

const store = await FakeGooglePlay.start();
afterAll(() => store.close());

const test = apiTest(storeEnvironment(store));
const DAY = 86_400_000;

describe('GET /api/billing/products', () => {
  test('lists the configured monthly and yearly products', async ({ free }) => {
    expect(bodyOf(await free.api.billing.products(), 200)).toEqual({
      products: [
        {
          id: 'premium_monthly',
          period: 'MONTHLY',
          price: 4900,
          currency: 'KRW',
          storeProductIds: { googlePlay: 'premium_monthly', appStore: 'app.nestegg.premium.monthly' },
        },
        {
          id: 'premium_yearly',
          period: 'YEARLY',
          price: 49000,
          currency: 'KRW',
          storeProductIds: { googlePlay: 'premium_yearly', appStore: 'app.nestegg.premium.yearly' },
        },
      ],
    });
  });
});

describe('POST /api/billing/store/verify', () => {
  test('grants PREMIUM until the store says, records the purchase, acknowledges it, and the session follows at once', async ({
    app,
    free,
  }) => {
    const expiryTime = new Date(Date.now() + 31 * DAY);
    const token = store.subscribe('premium_monthly', { expiryTime, orderId: 'GPA.1111-0' });
    expect(await sessionPlan(app, free)).toBe('FREE');

    const subscription = bodyOf(
      await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: token } }),
      200,
    );

    expect(subscription).toEqual({
      plan: 'PREMIUM',
      planExpiresAt: expiryTime.toISOString(),
      nextBillingDate: expiryTime.toISOString(),
      autoRenew: true,
      productId: 'premium_monthly',
      state: 'ACTIVE',
      store: 'GOOGLE_PLAY',
      manageUrl: `https://play.google.com/store/account/subscriptions?sku=premium_monthly&package=${store.packageName}`,
      purchases: [
        {
          store: 'GOOGLE_PLAY',
          productId: 'premium_monthly',
          state: 'ACTIVE',
          expiresAt: expiryTime.toISOString(),
          autoRenew: true,
          grantsPremium: true,
          sandbox: false,
          manageUrl: `https://play.google.com/store/account/subscriptions?sku=premium_monthly&package=${store.packageName}`,
        },
      ],
    });
    expect(await sessionPlan(app, free)).toBe('PREMIUM');
    expect(await memberRow(app, free.id)).toMatchObject({
      plan: 'PREMIUM',
      planExpiresAt: expiryTime,
      planProduct: 'premium_monthly',
      planAutoRenew: true,
    });
    const [purchase] = await purchaseRows(app, token);
    expect(purchase).toMatchObject({
      memberId: free.id,
      orderId: 'GPA.1111-0',
      state: 'ACTIVE',
      expiresAt: expiryTime,
    });
    expect(purchase!.acknowledgedAt).toBeInstanceOf(Date);
    expect(store.subscriptions.get(token)!.acknowledged).toBe(true);
    expect(bodyOf(await free.api.billing.subscription(), 200)).toEqual(subscription);
  });

  test('a further purchase extends the expiry', async ({ free }) => {
    const first = store.subscribe('premium_monthly', { expiryTime: new Date(Date.now() + 10 * DAY) });
    bodyOf(await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: first } }), 200);
    const yearEnd = new Date(Date.now() + 365 * DAY);
    const second = store.subscribe('premium_yearly', { expiryTime: yearEnd, autoRenew: false });
    const extended = bodyOf(
      await free.api.billing.verify({ body: { productId: 'premium_yearly', purchaseToken: second } }),
      200,
    );
    expect(extended).toMatchObject({
      planExpiresAt: yearEnd.toISOString(),
      productId: 'premium_yearly',
      autoRenew: false,
    });
  });

  test('is applied once: the same token again is idempotent for its owner, 409 for anyone else', async ({
    app,
    free,
    other,
  }) => {
    const token = store.subscribe('premium_monthly');
    const first = bodyOf(
      await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: token } }),
      200,
    );
    const again = bodyOf(
      await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: token } }),
      200,
    );
    expect(again).toEqual(first);
    problemOf(
      await other.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: token } }),
      409,
      'PURCHASE_OWNED_ELSEWHERE',
    );
    expect(await sessionPlan(app, other)).toBe('FREE');
    expect(await purchaseRows(app, token)).toHaveLength(1);
    expect(store.calls.acknowledgements.filter((acked) => acked === token)).toHaveLength(1);
  });

  test('concurrent verifies of one token apply once (one row, one acknowledgement, one owner)', async ({
    app,
    free,
    other,
  }) => {
    const token = store.subscribe('premium_monthly');
    const body = { productId: 'premium_monthly', purchaseToken: token };
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => free.api.billing.verify({ body })),
      ...Array.from({ length: 6 }, () => other.api.billing.verify({ body })),
    ]);
    const rows = await purchaseRows(app, token);
    expect(rows).toHaveLength(1);
    const owner = rows[0]!.memberId;
    const ownerAnswers = answers.slice(owner === free.id ? 0 : 6, owner === free.id ? 6 : 12);
    const strangerAnswers = answers.slice(owner === free.id ? 6 : 0, owner === free.id ? 12 : 6);
    expect(ownerAnswers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(strangerAnswers.map((answer) => answer.status)).toEqual([409, 409, 409, 409, 409, 409]);
    expect(store.calls.acknowledgements.filter((acked) => acked === token)).toHaveLength(1);
  });

  test('a pending purchase grants nothing yet (202); once paid, verifying again grants', async ({ app, free }) => {
    const token = store.subscribe('premium_monthly', { state: 'SUBSCRIPTION_STATE_PENDING' });
    const pending = await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: token } });
    expect(bodyOf(pending, 202)).toMatchObject({ plan: 'FREE', state: 'PENDING', planExpiresAt: null });
    expect(await sessionPlan(app, free)).toBe('FREE');
    expect(store.calls.acknowledgements).not.toContain(token);

    store.update(token, { state: 'SUBSCRIPTION_STATE_ACTIVE' });
    const paid = await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: token } });
    expect(bodyOf(paid, 200)).toMatchObject({ plan: 'PREMIUM', state: 'ACTIVE' });
    expect(await sessionPlan(app, free)).toBe('PREMIUM');
  });

  test('refuses unknown products, unknown tokens, another product, another package', async ({ free }) => {
    const token = store.subscribe('premium_monthly');
    problemOf(
      await free.api.billing.verify({ body: { productId: 'gold_lifetime', purchaseToken: token } }),
      400,
      'UNKNOWN_PRODUCT',
    );
    problemOf(
      await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: 'never-sold' } }),
      400,
      'INVALID_PURCHASE',
    );
    problemOf(
      await free.api.billing.verify({ body: { productId: 'premium_yearly', purchaseToken: token } }),
      400,
      'PRODUCT_MISMATCH',
    );
    problemOf(
      await free.api.billing.verify({
        body: { productId: 'premium_monthly', purchaseToken: token, packageName: 'com.someone.else' },
      }),
      400,
      'INVALID_PURCHASE',
    );
    expect(bodyOf(await free.api.billing.subscription(), 200)).toMatchObject({ plan: 'FREE', state: 'NONE' });
  });

  test('an unreachable store is a 503 to retry, and nothing is granted', async ({ app, free }) => {
    const token = store.subscribe('premium_monthly');
    store.outage = 503;
    try {
      const answer = await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: token } });
      expect(problemOf(answer, 503, 'STORE_UNAVAILABLE')).toBeDefined();
      expect(answer.headers.get('retry-after')).toBe('30');
    } finally {
      store.outage = null;
    }
    expect(await purchaseRows(app, token)).toEqual([]);
    expect(await sessionPlan(app, free)).toBe('FREE');
  });

  test('a failed acknowledgement keeps the grant and leaves the purchase for the worker to acknowledge', async ({
    app,
    free,
  }) => {
    const token = store.subscribe('premium_monthly');
    store.acknowledgementOutage = 503;
    try {
      bodyOf(await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: token } }), 200);
    } finally {
      store.acknowledgementOutage = null;
    }
    expect(store.subscriptions.get(token)!.acknowledged).toBe(false);
    const [purchase] = await purchaseRows(app, token);
    expect(purchase).toMatchObject({ state: 'ACTIVE', acknowledgedAt: null });
    expect(await sessionPlan(app, free)).toBe('PREMIUM');
  });
});
