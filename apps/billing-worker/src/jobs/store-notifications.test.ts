import { createDb, type DbHandle, iapPurchase } from '@nestegg/db';
import { FakeGooglePlay, type FakeSubscription } from '@nestegg/membership/testing';
import { useTestDatabase } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../worker.js';
import {
  addPurchase,
  DAY,
  inboxRow,
  membershipOf,
  memberWithSession,
  push,
  settledNotification,
  startBillingWorker,
  until,
} from './billing.fixture.js';
import { STORE_NOTIFICATION_QUEUE } from './store-notifications.js';

const store = await FakeGooglePlay.start();

describe('store notifications processed by the worker', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  let worker: Worker;

  beforeAll(async () => {
    handle = createDb(database.current.url, { max: 3 });
    worker = await startBillingWorker(database.current.url, store, {
      STORE_NOTIFICATION_RETRY_LIMIT: '2',
      STORE_NOTIFICATION_RETRY_DELAY_SECONDS: '1',
      STORE_NOTIFICATION_RETRY_DELAY_MAX_SECONDS: '2',
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await handle?.close();
    await store.close();
  });

  const expiry = (days: number) => new Date(Date.now() + days * DAY);

  /** A member who verified `token` earlier: PREMIUM (or `plan`), the purchase recorded as the store had it. */
  async function subscriber(
    storeState: Partial<FakeSubscription> = {},
    recorded: { state?: 'ACTIVE' | 'CANCELED' | 'ON_HOLD' | 'PAUSED' | 'PENDING'; expiresAt?: Date } = {},
  ) {
    const expiresAt = recorded.expiresAt ?? expiry(10);
    const entitled = ['ACTIVE', 'CANCELED', undefined].includes(recorded.state);
    const who = await memberWithSession(
      handle.db,
      entitled
        ? { plan: 'PREMIUM', planExpiresAt: expiresAt, planProduct: 'premium_monthly', planAutoRenew: true }
        : {},
    );
    const token = store.subscribe('premium_monthly', { expiryTime: expiresAt, acknowledged: true, ...storeState });
    await addPurchase(handle.db, {
      memberId: who.memberId,
      productId: 'premium_monthly',
      purchaseToken: token,
      state: recorded.state ?? 'ACTIVE',
      expiresAt,
      autoRenew: recorded.state !== 'CANCELED',
      acknowledgedAt: new Date(),
    });
    return { ...who, token };
  }

  async function notify(type: number, token: string) {
    const row = await settledNotification(
      handle.db,
      await push(handle.db, store, store.subscriptionNotification(type, token)),
    );
    return row;
  }

  it('1 SUBSCRIPTION_RECOVERED: back from hold, PREMIUM again until the new expiry', async () => {
    const who = await subscriber({ state: 'SUBSCRIPTION_STATE_ON_HOLD' }, { state: 'ON_HOLD', expiresAt: expiry(-2) });
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', sessionPlan: 'FREE' });
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_ACTIVE', expiryTime: expiry(30) });
    expect(await notify(1, who.token)).toMatchObject({ status: 'PROCESSED', outcome: 'APPLIED', attempts: 1 });
    expect(await membershipOf(handle.db, who)).toMatchObject({
      plan: 'PREMIUM',
      planExpiresAt: store.subscriptions.get(who.token)!.expiryTime,
      planAutoRenew: true,
      sessionPlan: 'PREMIUM',
      sessionInvalidated: true,
    });
  });

  it('2 SUBSCRIPTION_RENEWED: the expiry moves on', async () => {
    const who = await subscriber();
    const renewed = expiry(40);
    store.update(who.token, { expiryTime: renewed });
    await notify(2, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: renewed });
  });

  it('3 SUBSCRIPTION_CANCELED: PREMIUM until the expiry, auto-renew off', async () => {
    const who = await subscriber();
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false });
    await notify(3, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({
      plan: 'PREMIUM',
      planAutoRenew: false,
      sessionPlan: 'PREMIUM',
    });
  });

  it('4 SUBSCRIPTION_PURCHASED for a token nobody verified yet: kept as UNMATCHED, reported, not lost', async () => {
    const token = store.subscribe('premium_monthly');
    const row = await notify(4, token);
    expect(row).toMatchObject({ status: 'UNMATCHED', outcome: 'UNMATCHED', error: expect.stringMatching(/no member/) });
    expect(row.processedAt).toBeInstanceOf(Date);
  });

  it('4 SUBSCRIPTION_PURCHASED of an upgrade: the member is found through the linked token, the old purchase superseded', async () => {
    const who = await subscriber();
    const yearEnd = expiry(365);
    const upgrade = store.subscribe('premium_yearly', { expiryTime: yearEnd, linkedPurchaseToken: who.token });
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_EXPIRED', autoRenew: false, expiryTime: expiry(0) });
    expect(await notify(4, upgrade)).toMatchObject({ status: 'PROCESSED', outcome: 'APPLIED' });
    expect(await membershipOf(handle.db, who)).toMatchObject({
      plan: 'PREMIUM',
      planProduct: 'premium_yearly',
      planExpiresAt: yearEnd,
    });
    const [old] = await handle.db.select().from(iapPurchase).where(eq(iapPurchase.purchaseToken, who.token));
    expect(old!.supersededAt).toBeInstanceOf(Date);
    const [created] = await handle.db.select().from(iapPurchase).where(eq(iapPurchase.purchaseToken, upgrade));
    expect(created).toMatchObject({ memberId: who.memberId, linkedPurchaseToken: who.token, state: 'ACTIVE' });
    expect(store.subscriptions.get(upgrade)!.acknowledged).toBe(true);
  });

  it('5 SUBSCRIPTION_ON_HOLD: FREE at once, subscription info cleared, sessions follow', async () => {
    const who = await subscriber();
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_ON_HOLD', expiryTime: expiry(-1) });
    await notify(5, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({
      plan: 'FREE',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
      sessionPlan: 'FREE',
      sessionInvalidated: true,
    });
  });

  it('6 SUBSCRIPTION_IN_GRACE_PERIOD: PREMIUM stays through the grace period', async () => {
    const who = await subscriber();
    const graceEnd = expiry(3);
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD', expiryTime: graceEnd });
    await notify(6, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: graceEnd });
  });

  it('7 SUBSCRIPTION_RESTARTED: a cancelled subscription renews again', async () => {
    const who = await subscriber({ state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false }, { state: 'CANCELED' });
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_ACTIVE', autoRenew: true });
    await notify(7, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planAutoRenew: true });
  });

  it.each([
    [8, 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED'],
    [11, 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED'],
    [19, 'SUBSCRIPTION_PRICE_CHANGE_UPDATED'],
  ])('%i %s: the state is read and applied (still PREMIUM)', async (type) => {
    const who = await subscriber();
    expect(await notify(type, who.token)).toMatchObject({ status: 'PROCESSED', outcome: 'APPLIED' });
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', sessionPlan: 'PREMIUM' });
  });

  it('9 SUBSCRIPTION_DEFERRED: the developer moved the renewal, PREMIUM until the later date', async () => {
    const who = await subscriber();
    const deferred = expiry(70);
    store.update(who.token, { expiryTime: deferred });
    await notify(9, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: deferred });
  });

  it('10 SUBSCRIPTION_PAUSED: FREE at once', async () => {
    const who = await subscriber();
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_PAUSED' });
    await notify(10, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', planProduct: null, sessionPlan: 'FREE' });
  });

  it('12 SUBSCRIPTION_REVOKED: FREE at once', async () => {
    const who = await subscriber();
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_EXPIRED', autoRenew: false, expiryTime: expiry(0) });
    await notify(12, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', sessionPlan: 'FREE' });
  });

  it('13 SUBSCRIPTION_EXPIRED: FREE, subscription info cleared', async () => {
    const who = await subscriber();
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_EXPIRED', autoRenew: false, expiryTime: expiry(-1) });
    await notify(13, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({
      plan: 'FREE',
      planExpiresAt: null,
      planAutoRenew: false,
    });
  });

  it('20 SUBSCRIPTION_PENDING_PURCHASE_CANCELED: the pending purchase never grants anything', async () => {
    const who = await subscriber({ state: 'SUBSCRIPTION_STATE_PENDING' }, { state: 'PENDING' });
    store.update(who.token, { state: 'SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED' });
    await notify(20, who.token);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE' });
    const [purchase] = await handle.db.select().from(iapPurchase).where(eq(iapPurchase.purchaseToken, who.token));
    expect(purchase!.state).toBe('EXPIRED');
  });

  it('voided purchase (refund, chargeback): revoked at once', async () => {
    const who = await subscriber();
    store.voidPurchase(who.token);
    const row = await settledNotification(handle.db, await push(handle.db, store, store.voidedNotification(who.token)));
    expect(row).toMatchObject({ kind: 'VOIDED_PURCHASE', status: 'PROCESSED', outcome: 'REVOKED' });
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', sessionPlan: 'FREE' });
    const [purchase] = await handle.db.select().from(iapPurchase).where(eq(iapPurchase.purchaseToken, who.token));
    expect(purchase).toMatchObject({ state: 'REVOKED', autoRenew: false });
    expect(purchase!.voidedAt).toBeInstanceOf(Date);
  });

  it('test, one-time product and voided one-time notifications are processed without touching members', async () => {
    const test = await settledNotification(handle.db, await push(handle.db, store, store.testNotification()));
    expect(test).toMatchObject({ kind: 'TEST', status: 'PROCESSED', outcome: 'TEST' });
    const oneTime = await settledNotification(
      handle.db,
      await push(handle.db, store, {
        version: '1.0',
        packageName: store.packageName,
        eventTimeMillis: '1',
        oneTimeProductNotification: { version: '1.0', notificationType: 1, purchaseToken: 'coins', sku: 'coins_100' },
      }),
    );
    expect(oneTime).toMatchObject({ kind: 'ONE_TIME_PRODUCT', outcome: 'NOT_A_SUBSCRIPTION' });
    const voidedOneTime = await settledNotification(
      handle.db,
      await push(handle.db, store, store.voidedNotification('coins', 2)),
    );
    expect(voidedOneTime).toMatchObject({ outcome: 'NOT_A_SUBSCRIPTION' });
  });

  it('processes one purchase token at a time, whatever order the notifications arrive in', async () => {
    const who = await subscriber();
    store.latencyMs = 150;
    try {
      const finalExpiry = expiry(90);
      store.update(who.token, { expiryTime: finalExpiry });
      const messages = await Promise.all(
        [2, 6, 2, 1, 2, 8].map((type) => push(handle.db, store, store.subscriptionNotification(type, who.token))),
      );
      for (const messageId of messages) await settledNotification(handle.db, messageId);
      expect(store.calls.maxConcurrentGetsPerToken).toBe(1);
      expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: finalExpiry });
    } finally {
      store.latencyMs = 0;
    }
    const [queue] = await worker.boss.getQueues([STORE_NOTIFICATION_QUEUE]);
    expect(queue).toMatchObject({ retryBackoff: true, retryLimit: 2, retryDelay: 1 });
    const jobs = await handle.sql`select group_id from pgboss.job where name = ${STORE_NOTIFICATION_QUEUE}
                                   and data->>'notificationId' in (select id::text from store_notification
                                   where purchase_token = ${who.token})`;
    expect(jobs.map((job) => job.group_id)).toEqual(Array(6).fill(who.token));
  });

  it('a failure is retried with backoff until the store answers', async () => {
    const who = await subscriber();
    store.failingTokens.add(who.token);
    const renewed = expiry(33);
    store.update(who.token, { expiryTime: renewed });
    const messageId = await push(handle.db, store, store.subscriptionNotification(2, who.token));
    const firstFailure = await until(async () => {
      const row = await inboxRow(handle.db, messageId);
      return row.attempts >= 1 ? row : undefined;
    });
    expect(firstFailure).toMatchObject({ status: 'DISPATCHED', error: expect.stringMatching(/503/) });
    store.failingTokens.delete(who.token);
    const done = await settledNotification(handle.db, messageId, 20_000);
    expect(done).toMatchObject({ status: 'PROCESSED', outcome: 'APPLIED', error: null });
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    expect(await membershipOf(handle.db, who)).toMatchObject({ planExpiresAt: renewed });
  }, 40_000);

  it('after the last retry the notification is kept as FAILED with its error', async () => {
    const who = await subscriber();
    store.failingTokens.add(who.token);
    try {
      const messageId = await push(handle.db, store, store.subscriptionNotification(2, who.token));
      const failed = await until(async () => {
        const row = await inboxRow(handle.db, messageId);
        return row.status === 'FAILED' ? row : undefined;
      }, 30_000);
      expect(failed.attempts).toBe(3);
      expect(failed.error).toMatch(/503/);
      expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM' });
    } finally {
      store.failingTokens.delete(who.token);
    }
  }, 40_000);
});
