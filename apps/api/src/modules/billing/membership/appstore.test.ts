/**
 * Issue 39, the App Store over HTTP against the fake App Store (signed data from a test certificate chain,
 * the App Store Server API): the member's appAccountToken, verify (signed transaction or id), the notification
 * endpoint, and the environments (decisions BL23–BL25).
 */
import { type Database, iapPurchase, storeNotification } from '@nestegg/db';
import { STORE_INBOX_CHANNEL } from '@nestegg/membership';
import { FakeAppStore, FakeGooglePlay } from '@nestegg/membership/testing';
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect } from 'vitest';
import { type ApiClient, bodyOf, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import {
  APPLE_MONTHLY,
  APPLE_YEARLY,
  bothStoresEnvironment,
  memberRow,
  sessionPlan,
  storeEnvironment,
} from './billing.fixture.js';

const google = await FakeGooglePlay.start();
const apple = await FakeAppStore.start();
afterAll(async () => {
  await google.close();
  await apple.close();
});

const DAY = 86_400_000;
const APPLE_PAGE = 'https://apps.apple.com/account/subscriptions';

const test = apiTest(bothStoresEnvironment(google, apple));
/** Sandbox purchases allowed, and test mode (Xcode-signed transactions). */
const sandboxTest = apiTest({
  ...bothStoresEnvironment(google, apple),
  APPSTORE_SANDBOX_PURCHASES: 'true',
  BILLING_TEST_MODE: 'true',
});
/** Revocation checks on: the fake's OCSP responder cannot answer, so no verification can finish. */
const onlineTest = apiTest({ ...bothStoresEnvironment(google, apple), APPSTORE_ONLINE_CHECKS: 'true' });
/** Google Play only. */
const googleOnlyTest = apiTest(storeEnvironment(google));

async function accountToken(caller: { api: ApiClient }): Promise<string> {
  return bodyOf(await caller.api.billing.appStoreAccountToken(), 200).appAccountToken;
}

async function appleRows(app: { db: Database }, originalTransactionId: string) {
  return app.db
    .select()
    .from(iapPurchase)
    .where(and(eq(iapPurchase.store, 'APP_STORE'), eq(iapPurchase.purchaseToken, originalTransactionId)));
}

describe('GET /api/billing/appstore/account-token', () => {
  test("is the member's own UUID, the same every time", async ({ free, other }) => {
    const first = await accountToken(free);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await accountToken(free)).toBe(first);
    expect(await accountToken(other)).not.toBe(first);
  });
});

describe('POST /api/billing/appstore/verify', () => {
  test('a signed transaction carrying the member’s token grants PREMIUM until the App Store says, once', async ({
    app,
    free,
    other,
  }) => {
    const expiresDate = new Date(Date.now() + 31 * DAY);
    const id = apple.subscribe(APPLE_MONTHLY, { appAccountToken: await accountToken(free), expiresDate });
    const signedTransaction = await apple.signedTransaction(id);
    expect(await sessionPlan(app, free)).toBe('FREE');

    const subscription = bodyOf(await free.api.billing.appStoreVerify({ body: { signedTransaction } }), 200);
    expect(subscription).toMatchObject({
      plan: 'PREMIUM',
      planExpiresAt: expiresDate.toISOString(),
      nextBillingDate: expiresDate.toISOString(),
      autoRenew: true,
      productId: 'premium_monthly',
      state: 'ACTIVE',
      store: 'APP_STORE',
      manageUrl: APPLE_PAGE,
      purchases: [
        {
          store: 'APP_STORE',
          productId: 'premium_monthly',
          state: 'ACTIVE',
          grantsPremium: true,
          sandbox: false,
          manageUrl: APPLE_PAGE,
        },
      ],
    });
    expect(await sessionPlan(app, free)).toBe('PREMIUM');
    const [row] = await appleRows(app, id);
    expect(row).toMatchObject({ memberId: free.id, store: 'APP_STORE', state: 'ACTIVE', sandbox: false, test: false });
    // The store's truth was read (Get All Subscription Statuses), not only the transaction the app sent.
    expect(apple.calls.statuses).toContain(id);

    // Again by its owner: the current subscription; by anyone else: 409 (the token is not theirs either).
    expect(bodyOf(await free.api.billing.appStoreVerify({ body: { signedTransaction } }), 200)).toEqual(subscription);
    problemOf(await other.api.billing.appStoreVerify({ body: { signedTransaction } }), 409, 'PURCHASE_OWNED_ELSEWHERE');
    expect(await sessionPlan(app, other)).toBe('FREE');
    expect(await appleRows(app, id)).toHaveLength(1);
  });

  test('a transaction id is read from the App Store and verified the same way', async ({ free }) => {
    const id = apple.subscribe(APPLE_YEARLY, { appAccountToken: await accountToken(free) });
    const subscription = bodyOf(await free.api.billing.appStoreVerify({ body: { transactionId: id } }), 200);
    expect(subscription).toMatchObject({ plan: 'PREMIUM', productId: 'premium_yearly', store: 'APP_STORE' });
    expect(apple.calls.transactionInfos).toContain(id);
  });

  test('refuses forged signatures, another app, a foreign token or none, unknown products', async ({ free, other }) => {
    const mine = await accountToken(free);
    const id = apple.subscribe(APPLE_MONTHLY, { appAccountToken: mine });
    const verify = (signedTransaction: string) => free.api.billing.appStoreVerify({ body: { signedTransaction } });
    problemOf(await verify(await apple.signedTransaction(id, { foreignChain: true })), 400, 'INVALID_PURCHASE');
    problemOf(
      await verify(await apple.signedTransaction(id, { claims: { bundleId: 'com.someone.else' } })),
      400,
      'INVALID_PURCHASE',
    );
    problemOf(await verify('eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ.c2ln'), 400, 'INVALID_PURCHASE');
    const tokenless = apple.subscribe(APPLE_MONTHLY);
    problemOf(await verify(await apple.signedTransaction(tokenless)), 400, 'APP_ACCOUNT_TOKEN_MISMATCH');
    const strangers = apple.subscribe(APPLE_MONTHLY, { appAccountToken: crypto.randomUUID() });
    problemOf(await verify(await apple.signedTransaction(strangers)), 400, 'APP_ACCOUNT_TOKEN_MISMATCH');
    // Bought with another member's token: that member's purchase, replayed.
    const theirs = apple.subscribe(APPLE_MONTHLY, { appAccountToken: await accountToken(other) });
    problemOf(await verify(await apple.signedTransaction(theirs)), 409, 'PURCHASE_OWNED_ELSEWHERE');
    const coins = apple.subscribe('app.nestegg.coins', { appAccountToken: mine });
    problemOf(await verify(await apple.signedTransaction(coins)), 400, 'UNKNOWN_PRODUCT');
    problemOf(await free.api.billing.appStoreVerify({ body: { transactionId: '1' } }), 400, 'INVALID_PURCHASE');
    problemOf(
      await free.api.billing.appStoreVerify({
        body: { transactionId: id, signedTransaction: await apple.signedTransaction(id) },
      }),
      400,
      'VALIDATION_FAILED',
    );
    problemOf(await free.api.billing.appStoreVerify({ body: {} }), 400, 'VALIDATION_FAILED');
    expect(bodyOf(await free.api.billing.subscription(), 200)).toMatchObject({ plan: 'FREE', state: 'NONE' });
  });

  test('a sandbox purchase on a production setting grants nothing (403); Xcode-signed only in test mode', async ({
    app,
    free,
  }) => {
    const token = await accountToken(free);
    const sandboxed = apple.subscribe(APPLE_MONTHLY, { appAccountToken: token, environment: 'Sandbox' });
    const answer = await free.api.billing.appStoreVerify({
      body: { signedTransaction: await apple.signedTransaction(sandboxed) },
    });
    problemOf(answer, 403, 'SANDBOX_NOT_ALLOWED');
    expect(await appleRows(app, sandboxed)).toEqual([]);
    const xcode = await apple.xcodeTransaction(APPLE_MONTHLY, token, new Date(Date.now() + DAY));
    problemOf(await free.api.billing.appStoreVerify({ body: { signedTransaction: xcode } }), 400, 'INVALID_PURCHASE');
    expect(await sessionPlan(app, free)).toBe('FREE');
  });

  test('a subscription in billing retry is recorded and grants nothing yet (202)', async ({ free }) => {
    const id = apple.subscribe(APPLE_MONTHLY, {
      appAccountToken: await accountToken(free),
      status: 3,
      expiresDate: new Date(Date.now() - DAY),
    });
    const answer = await free.api.billing.appStoreVerify({ body: { transactionId: id } });
    expect(bodyOf(answer, 202)).toMatchObject({ plan: 'FREE', state: 'ON_HOLD', store: 'APP_STORE' });
  });

  test('Family Sharing: the family member’s transaction carries no token of theirs and needs none', async ({
    app,
    free,
  }) => {
    const id = apple.subscribe(APPLE_MONTHLY, { ownership: 'FAMILY_SHARED' });
    bodyOf(
      await free.api.billing.appStoreVerify({ body: { signedTransaction: await apple.signedTransaction(id) } }),
      200,
    );
    expect(await sessionPlan(app, free)).toBe('PREMIUM');
  });

  test('Apple’s API down: 503 with Retry-After, nothing granted', async ({ app, free }) => {
    const id = apple.subscribe(APPLE_MONTHLY, { appAccountToken: await accountToken(free) });
    const signedTransaction = await apple.signedTransaction(id);
    apple.outage = 503;
    try {
      const answer = await free.api.billing.appStoreVerify({ body: { signedTransaction } });
      problemOf(answer, 503, 'STORE_UNAVAILABLE');
      expect(answer.headers.get('retry-after')).toBe('30');
    } finally {
      apple.outage = null;
    }
    expect(await appleRows(app, id)).toEqual([]);
    expect(await sessionPlan(app, free)).toBe('FREE');
  });
});

describe('environments (BL25)', () => {
  sandboxTest(
    'sandbox purchases grant where allowed, marked as such; Xcode-signed ones in test mode',
    async ({ app, free, other }) => {
      const sandboxed = apple.subscribe(APPLE_MONTHLY, {
        appAccountToken: await accountToken(free),
        environment: 'Sandbox',
      });
      const subscription = bodyOf(
        await free.api.billing.appStoreVerify({
          body: { signedTransaction: await apple.signedTransaction(sandboxed) },
        }),
        200,
      );
      expect(subscription).toMatchObject({ plan: 'PREMIUM', purchases: [{ store: 'APP_STORE', sandbox: true }] });
      expect((await appleRows(app, sandboxed))[0]).toMatchObject({ sandbox: true });

      const until = new Date(Date.now() + 3 * DAY);
      const xcode = await apple.xcodeTransaction(APPLE_YEARLY, await accountToken(other), until);
      const tested = bodyOf(await other.api.billing.appStoreVerify({ body: { signedTransaction: xcode } }), 200);
      expect(tested).toMatchObject({
        plan: 'PREMIUM',
        productId: 'premium_yearly',
        planExpiresAt: until.toISOString(),
      });
    },
  );

  onlineTest(
    'revocation checked (OCSP): good grants; revoked is refused; a check that cannot finish is a 503',
    async ({ app, free, other, anonymous }) => {
      const id = apple.subscribe(APPLE_MONTHLY, { appAccountToken: await accountToken(free) });
      const asked = apple.calls.ocsp;
      bodyOf(
        await free.api.billing.appStoreVerify({ body: { signedTransaction: await apple.signedTransaction(id) } }),
        200,
      );
      expect(apple.calls.ocsp).toBeGreaterThan(asked);
      expect(await sessionPlan(app, free)).toBe('PREMIUM');

      // The verifier keeps a checked certificate for 15 minutes: each case below signs with a new one.
      const otherId = apple.subscribe(APPLE_MONTHLY, { appAccountToken: await accountToken(other) });
      try {
        // Apple's responder unreachable: nothing can be decided, so the caller (Apple, for a notification) retries.
        apple.ocsp = 'unavailable';
        await apple.rotateLeaf();
        const unchecked = await apple.signedTransaction(otherId);
        problemOf(
          await other.api.billing.appStoreVerify({ body: { signedTransaction: unchecked } }),
          503,
          'STORE_UNAVAILABLE',
        );
        const later = await apple.notification('DID_RENEW', otherId);
        problemOf(
          await anonymous.billing.appStoreNotification({ body: { signedPayload: later.signedPayload } }),
          503,
          'STORE_UNAVAILABLE',
        );
        // The signing certificate revoked: it signs nothing that counts.
        apple.ocsp = 'revoked';
        await apple.rotateLeaf();
        const revoked = await apple.signedTransaction(otherId);
        problemOf(
          await other.api.billing.appStoreVerify({ body: { signedTransaction: revoked } }),
          400,
          'INVALID_PURCHASE',
        );
        const forged = await apple.notification('DID_RENEW', otherId);
        problemOf(
          await anonymous.billing.appStoreNotification({ body: { signedPayload: forged.signedPayload } }),
          401,
          'INVALID_NOTIFICATION_SIGNATURE',
        );
      } finally {
        apple.ocsp = 'good';
        await apple.rotateLeaf();
      }
      expect(await sessionPlan(app, other)).toBe('FREE');
    },
  );

  googleOnlyTest(
    'without the App Store configured its routes answer 503 STORE_NOT_CONFIGURED',
    async ({ free, anonymous }) => {
      const id = apple.subscribe(APPLE_MONTHLY);
      problemOf(await free.api.billing.appStoreAccountToken(), 503, 'STORE_NOT_CONFIGURED');
      problemOf(
        await free.api.billing.appStoreVerify({ body: { signedTransaction: await apple.signedTransaction(id) } }),
        503,
        'STORE_NOT_CONFIGURED',
      );
      const { signedPayload } = await apple.notification('TEST', null);
      problemOf(await anonymous.billing.appStoreNotification({ body: { signedPayload } }), 503, 'STORE_NOT_CONFIGURED');
    },
  );
});

describe('POST /api/billing/appstore/notifications', () => {
  test('stores a verified notification once per notificationUUID, answers 200 fast, wakes the worker', async ({
    app,
    anonymous,
  }) => {
    const id = apple.subscribe(APPLE_MONTHLY);
    const { signedPayload, notificationUUID } = await apple.notification('SUBSCRIBED', id, 'INITIAL_BUY');
    const woken: string[] = [];
    const listening = await app.sql.listen(STORE_INBOX_CHANNEL, (payload) => woken.push(payload));
    try {
      const started = performance.now();
      const first = await anonymous.billing.appStoreNotification({ body: { signedPayload } });
      const elapsed = performance.now() - started;
      const replayed = await anonymous.billing.appStoreNotification({ body: { signedPayload } });
      expect([first.status, replayed.status]).toEqual([200, 200]);
      expect(elapsed).toBeLessThan(500);
      const rows = await app.db
        .select()
        .from(storeNotification)
        .where(and(eq(storeNotification.store, 'APP_STORE'), eq(storeNotification.messageId, notificationUUID)));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        kind: 'SUBSCRIPTION',
        event: 'SUBSCRIBED:INITIAL_BUY',
        purchaseToken: id,
        status: 'RECEIVED',
        notificationType: null,
        error: null,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(woken.filter((payload) => payload.split(' ')[0] === String(rows[0]!.id))).toHaveLength(1);
    } finally {
      await listening.unlisten();
    }
  });

  test('a signature that does not verify (outside or inside) is a 401, and nothing is stored', async ({
    app,
    anonymous,
  }) => {
    const id = apple.subscribe(APPLE_MONTHLY);
    const forged = await apple.notification('DID_RENEW', id, undefined, { foreignChain: true });
    const forgedInside = await apple.notification('DID_RENEW', id, undefined, { innerForeignChain: true });
    // Signed by Apple's chain, but for another app: Apple's library refuses it before handing it over.
    const otherApp = await apple.notification('DID_RENEW', id, undefined, {
      claims: { data: { appAppleId: apple.appAppleId, bundleId: 'com.someone.else', environment: 'Production' } },
    });
    for (const { signedPayload } of [forged, forgedInside, otherApp, { signedPayload: 'not.a.jws' }]) {
      problemOf(
        await anonymous.billing.appStoreNotification({ body: { signedPayload } }),
        401,
        'INVALID_NOTIFICATION_SIGNATURE',
      );
    }
    const stored = await app.db
      .select()
      .from(storeNotification)
      .where(eq(storeNotification.messageId, forged.notificationUUID));
    expect(stored).toEqual([]);
  });

  test('unknown types are kept; a sandbox notification on a production setting is kept unapplied', async ({
    app,
    anonymous,
  }) => {
    const id = apple.subscribe(APPLE_MONTHLY);
    // An unknown type, in a body with a field Apple might add one day: kept.
    const unknown = await apple.notification('SOMETHING_NEW', id, 'SHINY');
    const grown = { signedPayload: unknown.signedPayload, deliveryAttempt: 2 };
    expect((await anonymous.billing.appStoreNotification({ body: grown })).status).toBe(200);
    const sandboxed = apple.subscribe(APPLE_MONTHLY, { environment: 'Sandbox' });
    const sandbox = await apple.notification('DID_RENEW', sandboxed);
    const sandboxBody = { signedPayload: sandbox.signedPayload };
    expect((await anonymous.billing.appStoreNotification({ body: sandboxBody })).status).toBe(200);
    const row = async (messageId: string) =>
      (await app.db.select().from(storeNotification).where(eq(storeNotification.messageId, messageId)))[0];
    expect(await row(unknown.notificationUUID)).toMatchObject({ event: 'SOMETHING_NEW:SHINY', status: 'RECEIVED' });
    expect(await row(sandbox.notificationUUID)).toMatchObject({
      status: 'REJECTED',
      error: expect.stringMatching(/Sandbox purchases grant nothing here/),
    });
  });
});

describe('one membership across both stores (BL27)', () => {
  test('a Google Play member who buys on the App Store: the later expiry wins, both listed, cancel and refund per store', async ({
    app,
    free,
  }) => {
    const googleUntil = new Date(Date.now() + 10 * DAY);
    const token = google.subscribe('premium_monthly', { expiryTime: googleUntil });
    bodyOf(await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: token } }), 200);
    const appleUntil = new Date(Date.now() + 40 * DAY);
    const id = apple.subscribe(APPLE_MONTHLY, { appAccountToken: await accountToken(free), expiresDate: appleUntil });
    const both = bodyOf(await free.api.billing.appStoreVerify({ body: { transactionId: id } }), 200);
    // No double period (the periods are not added up) and no lost time (the later expiry stands).
    expect(both).toMatchObject({ plan: 'PREMIUM', planExpiresAt: appleUntil.toISOString(), store: 'APP_STORE' });
    expect(both.purchases.map((purchase) => [purchase.store, purchase.grantsPremium, purchase.autoRenew])).toEqual([
      ['APP_STORE', true, true],
      ['GOOGLE_PLAY', true, true],
    ]);

    // Cancel: Google Play's renewal stopped by the server; Apple's is the member's to stop, in the App Store.
    const cancelled = bodyOf(await free.api.billing.cancel(), 202);
    expect(cancelled).toMatchObject({
      action: 'MANAGE_IN_STORE',
      reason: 'CANCEL_IN_STORE',
      store: 'APP_STORE',
      manageUrl: APPLE_PAGE,
    });
    expect(google.subscriptions.get(token)).toMatchObject({ state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false });
    expect(cancelled.subscription.purchases.find((purchase) => purchase.store === 'GOOGLE_PLAY')).toMatchObject({
      autoRenew: false,
      state: 'CANCELED',
    });

    // Resume sends the member to the store of the purchase that grants longest.
    expect(bodyOf(await free.api.billing.resume(), 200)).toMatchObject({ store: 'APP_STORE', autoRenew: true });

    // Apple refunds: the App Store purchase ends, the Google Play one still entitles until its own expiry.
    apple.revoke(id);
    bodyOf(await free.api.billing.restore(), 200);
    expect(await memberRow(app, free.id)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: googleUntil });
    const after = bodyOf(await free.api.billing.subscription(), 200);
    expect(after).toMatchObject({ store: 'GOOGLE_PLAY', state: 'CANCELED' });
    expect(after.purchases.find((purchase) => purchase.store === 'APP_STORE')).toMatchObject({
      state: 'REVOKED',
      grantsPremium: false,
    });
  });

  test('resume of a cancelled App Store subscription answers with the App Store’s page', async ({ free }) => {
    const id = apple.subscribe(APPLE_MONTHLY, { appAccountToken: await accountToken(free), autoRenew: false });
    expect(bodyOf(await free.api.billing.appStoreVerify({ body: { transactionId: id } }), 200)).toMatchObject({
      state: 'CANCELED',
      nextBillingDate: null,
    });
    expect(bodyOf(await free.api.billing.resume(), 202)).toMatchObject({
      reason: 'RESUME_IN_STORE',
      store: 'APP_STORE',
      manageUrl: APPLE_PAGE,
    });
    // Nothing renews: cancel has nothing to stop (200).
    expect(bodyOf(await free.api.billing.cancel(), 200)).toMatchObject({ autoRenew: false });
  });

  test('restore re-reads the App Store purchase: renewed there, PREMIUM here again', async ({ app, free }) => {
    const id = apple.subscribe(APPLE_MONTHLY, { appAccountToken: await accountToken(free) });
    bodyOf(await free.api.billing.appStoreVerify({ body: { transactionId: id } }), 200);
    apple.update(id, { status: 2, expiresDate: new Date(Date.now() - DAY), autoRenew: false });
    expect(bodyOf(await free.api.billing.restore(), 200)).toMatchObject({ plan: 'FREE', state: 'EXPIRED' });
    expect(await sessionPlan(app, free)).toBe('FREE');
    const renewed = new Date(Date.now() + 30 * DAY);
    apple.renew(id, renewed);
    expect(bodyOf(await free.api.billing.restore(), 200)).toMatchObject({
      plan: 'PREMIUM',
      planExpiresAt: renewed.toISOString(),
    });
    expect(await sessionPlan(app, free)).toBe('PREMIUM');
  });
});
