/**
 * The whole subscription lifecycle against the fake store, through the api and a real billing worker:
 * purchase → cancel → grace → hold → recovery → expiry → refund → re-subscription, with the member's
 * plan and live session checked at every step.
 */
import { iapPurchase } from '@nestegg/db';
import { FakeGooglePlay } from '@nestegg/membership/testing';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import {
  eventually,
  memberRow,
  purchaseRows,
  sessionPlan,
  storeEnvironment,
  waitForSessionPlan,
} from './billing.fixture.js';
import { processed, pushNotification, startTestWorker } from './workers.fixture.js';

const store = await FakeGooglePlay.start();
afterAll(() => store.close());

const test = apiTest(storeEnvironment(store));
const DAY = 86_400_000;
const MONTHLY = 'premium_monthly';

describe('subscription lifecycle', () => {
  test('purchase, cancel, grace, hold, recovery, expiry, refund, re-subscription', async ({ app, free }) => {
    const worker = await startTestWorker(app, store);
    const notify = async (notification: object) => {
      const row = await processed(app, await pushNotification(app, store, notification));
      expect(row.status, JSON.stringify(row)).toBe('PROCESSED');
      return row;
    };
    const subscription = async () => bodyOf(await free.api.billing.subscription(), 200);
    const runExpiryJob = async () => {
      const jobId = await worker.boss.send('membership-expiry', {});
      await eventually(async () => {
        const job = await worker.boss.getJobById('membership-expiry', jobId!);
        return job?.state === 'completed' ? job : undefined;
      });
    };

    try {
      // Purchase: verified, PREMIUM at once, acknowledged; the store's PURCHASED notification changes nothing.
      const first = store.subscribe(MONTHLY, { expiryTime: new Date(Date.now() + 30 * DAY) });
      expect(
        bodyOf(await free.api.billing.verify({ body: { productId: MONTHLY, purchaseToken: first } }), 200),
      ).toMatchObject({
        plan: 'PREMIUM',
        state: 'ACTIVE',
        autoRenew: true,
      });
      expect(await sessionPlan(app, free)).toBe('PREMIUM');
      expect(store.subscriptions.get(first)!.acknowledged).toBe(true);
      await notify(store.subscriptionNotification(4, first));
      expect(await subscription()).toMatchObject({ plan: 'PREMIUM', state: 'ACTIVE' });

      // Cancel: renewal stopped in the store, PREMIUM until the expiry; the CANCELED notification agrees.
      expect(bodyOf(await free.api.billing.cancel(), 200)).toMatchObject({ plan: 'PREMIUM', autoRenew: false });
      await notify(store.subscriptionNotification(3, first));
      expect(await subscription()).toMatchObject({ plan: 'PREMIUM', autoRenew: false, state: 'CANCELED' });
      expect(bodyOf(await free.api.billing.resume(), 202)).toMatchObject({ action: 'MANAGE_IN_STORE' });

      // The member resumes in the store (RESTARTED): auto-renewing again.
      store.update(first, { state: 'SUBSCRIPTION_STATE_ACTIVE', autoRenew: true });
      await notify(store.subscriptionNotification(7, first));
      expect(await subscription()).toMatchObject({ plan: 'PREMIUM', autoRenew: true, state: 'ACTIVE' });

      // Grace: the renewal payment failed, the store retries; PREMIUM stays.
      const graceEnd = new Date(Date.now() + 3 * DAY);
      store.update(first, { state: 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD', expiryTime: graceEnd });
      await notify(store.subscriptionNotification(6, first));
      expect(await subscription()).toMatchObject({
        plan: 'PREMIUM',
        state: 'IN_GRACE',
        planExpiresAt: graceEnd.toISOString(),
      });
      expect(await sessionPlan(app, free)).toBe('PREMIUM');

      // Hold: FREE at once, subscription info cleared, the live session follows.
      store.update(first, { state: 'SUBSCRIPTION_STATE_ON_HOLD', expiryTime: new Date(Date.now() - 60_000) });
      await notify(store.subscriptionNotification(5, first));
      await waitForSessionPlan(app, free, 'FREE');
      expect(await subscription()).toMatchObject({
        plan: 'FREE',
        planExpiresAt: null,
        productId: null,
        state: 'ON_HOLD',
      });

      // Recovery: payment fixed, PREMIUM again.
      store.update(first, { state: 'SUBSCRIPTION_STATE_ACTIVE', expiryTime: new Date(Date.now() + 30 * DAY) });
      await notify(store.subscriptionNotification(1, first));
      await waitForSessionPlan(app, free, 'PREMIUM');
      expect(await subscription()).toMatchObject({ plan: 'PREMIUM', state: 'ACTIVE', autoRenew: true });

      // Expiry, auto-renew on: the hourly job asks the store rather than downgrading; the store renewed it.
      store.update(first, { expiryTime: new Date(Date.now() + 1500) });
      await notify(store.subscriptionNotification(2, first));
      const renewedUntil = new Date(Date.now() + 30 * DAY);
      await new Promise((resolve) => setTimeout(resolve, 1600));
      store.update(first, { expiryTime: renewedUntil }); // the renewal's notification never came
      await runExpiryJob();
      expect(await subscription()).toMatchObject({ plan: 'PREMIUM', planExpiresAt: renewedUntil.toISOString() });
      expect(await sessionPlan(app, free)).toBe('PREMIUM');

      // Expiry, auto-renew off: the member cancels, the period runs out, the hourly job drops to FREE.
      store.update(first, {
        state: 'SUBSCRIPTION_STATE_CANCELED',
        autoRenew: false,
        expiryTime: new Date(Date.now() + 1500),
      });
      await notify(store.subscriptionNotification(3, first));
      await new Promise((resolve) => setTimeout(resolve, 1600));
      const asksBefore = store.calls.gets.length;
      await runExpiryJob();
      expect(store.calls.gets.length).toBe(asksBefore);
      await waitForSessionPlan(app, free, 'FREE');
      expect(await memberRow(app, free.id)).toMatchObject({
        plan: 'FREE',
        planExpiresAt: null,
        planProduct: null,
        planAutoRenew: false,
      });
      expect(await subscription()).toMatchObject({ plan: 'FREE', state: 'EXPIRED' });

      // Refund: the member subscribes again, then gets a refund: revoked at once.
      const second = store.subscribe(MONTHLY, { expiryTime: new Date(Date.now() + 30 * DAY) });
      bodyOf(await free.api.billing.verify({ body: { productId: MONTHLY, purchaseToken: second } }), 200);
      expect(await sessionPlan(app, free)).toBe('PREMIUM');
      store.voidPurchase(second);
      await notify(store.voidedNotification(second));
      await waitForSessionPlan(app, free, 'FREE');
      expect(await subscription()).toMatchObject({ plan: 'FREE', state: 'REVOKED' });

      // Re-subscription: the store links the new purchase to the refunded one; its notification arrives
      // before the app verifies, and the member is found through the link.
      const third = store.subscribe(MONTHLY, {
        expiryTime: new Date(Date.now() + 30 * DAY),
        linkedPurchaseToken: second,
      });
      const resubscribed = await notify(store.subscriptionNotification(4, third));
      expect(resubscribed.outcome).toBe('APPLIED');
      await waitForSessionPlan(app, free, 'PREMIUM');
      expect(await subscription()).toMatchObject({ plan: 'PREMIUM', state: 'ACTIVE', autoRenew: true });
      const [replaced] = await app.db.select().from(iapPurchase).where(eq(iapPurchase.purchaseToken, second));
      expect(replaced!.supersededAt).toBeInstanceOf(Date);
      expect((await purchaseRows(app, third))[0]).toMatchObject({ memberId: free.id, state: 'ACTIVE' });
      // The app verifies it afterwards: idempotent.
      expect(
        bodyOf(await free.api.billing.verify({ body: { productId: MONTHLY, purchaseToken: third } }), 200),
      ).toMatchObject({
        plan: 'PREMIUM',
      });
    } finally {
      await worker.stop();
    }
  }, 120_000);
});
