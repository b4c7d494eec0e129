/**
 * Issue 39: App Store Server Notifications V2 applied by the worker from the App Store's truth (Get All
 * Subscription Statuses against the fake App Store), whatever their type or order (decision BL26); the expiry
 * job and the notification history (decision BL28).
 */
import { createDb, type DbHandle, iapPurchase, member } from '@nestegg/db';
import {
  AppStoreGateway,
  AppStoreSync,
  appStoreConfigOf,
  MembershipSync,
  ProductCatalog,
  queueStoreCancellations,
} from '@nestegg/membership';
import { type FakeAppleSubscription, FakeAppStore, FakeGooglePlay } from '@nestegg/membership/testing';
import { useTestDatabase } from '@nestegg/testing';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../worker.js';
import { recoverAppStoreNotifications } from './appstore-notification-history.js';
import {
  addPurchase,
  appAccountTokenOf,
  DAY,
  inboxRow,
  membershipOf,
  memberWithSession,
  pushAppStore,
  settledNotification,
  silent,
  startBillingWorker,
  until,
  workerEnv,
} from './billing.fixture.js';
import { expireMemberships } from './membership-expiry.js';

const google = await FakeGooglePlay.start();
const apple = await FakeAppStore.start();
const MONTHLY = 'app.nestegg.premium.monthly';
const YEARLY = 'app.nestegg.premium.yearly';

describe('App Store notifications processed by the worker', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  let worker: Worker;

  beforeAll(async () => {
    handle = createDb(database.current.url, { max: 3 });
    worker = await startBillingWorker(database.current.url, google, {
      ...apple.env(),
      STORE_NOTIFICATION_RETRY_LIMIT: '3',
      STORE_NOTIFICATION_RETRY_DELAY_SECONDS: '1',
      STORE_NOTIFICATION_RETRY_DELAY_MAX_SECONDS: '2',
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await handle?.close();
    await google.close();
    await apple.close();
  });

  const days = (count: number) => new Date(Date.now() + count * DAY);

  /** A member who verified an App Store subscription earlier: PREMIUM, the purchase recorded as Apple had it. */
  async function subscriber(options: Partial<FakeAppleSubscription> = {}) {
    const expiresAt = options.expiresDate ?? days(10);
    const who = await memberWithSession(handle.db, {
      plan: 'PREMIUM',
      planExpiresAt: expiresAt,
      planProduct: 'premium_monthly',
      planAutoRenew: true,
    });
    const id = apple.subscribe(MONTHLY, {
      appAccountToken: await appAccountTokenOf(handle.db, who.memberId),
      expiresDate: expiresAt,
      ...options,
    });
    await addPurchase(handle.db, {
      memberId: who.memberId,
      store: 'APP_STORE',
      productId: 'premium_monthly',
      purchaseToken: id,
      state: 'ACTIVE',
      expiresAt,
      autoRenew: true,
      sandbox: options.environment === 'Sandbox',
      acknowledgedAt: new Date(),
    });
    return { ...who, id };
  }

  async function notify(type: string, id: string | null, subtype?: string) {
    const { signedPayload } = await apple.notification(type, id, subtype);
    return settledNotification(handle.db, await pushAppStore(handle.db, apple, signedPayload));
  }

  async function purchaseOf(id: string) {
    const [row] = await handle.db
      .select()
      .from(iapPurchase)
      .where(and(eq(iapPurchase.store, 'APP_STORE'), eq(iapPurchase.purchaseToken, id)));
    return row;
  }

  it('SUBSCRIBED before the app verified: the member is found by the signed appAccountToken', async () => {
    const who = await memberWithSession(handle.db);
    const until30 = days(30);
    const id = apple.subscribe(MONTHLY, {
      appAccountToken: await appAccountTokenOf(handle.db, who.memberId),
      expiresDate: until30,
    });
    expect(await notify('SUBSCRIBED', id, 'INITIAL_BUY')).toMatchObject({
      status: 'PROCESSED',
      outcome: 'APPLIED',
      event: 'SUBSCRIBED:INITIAL_BUY',
      attempts: 1,
    });
    expect(await membershipOf(handle.db, who)).toMatchObject({
      plan: 'PREMIUM',
      planExpiresAt: until30,
      sessionPlan: 'PREMIUM',
      sessionInvalidated: true,
    });
  });

  it('SUBSCRIBED with no member behind it: kept as UNMATCHED', async () => {
    const id = apple.subscribe(MONTHLY, { appAccountToken: crypto.randomUUID() });
    expect(await notify('SUBSCRIBED', id, 'INITIAL_BUY')).toMatchObject({ status: 'UNMATCHED', outcome: 'UNMATCHED' });
  });

  it('a notification of a withdrawn member’s subscription ends MEMBER_WITHDRAWN, not UNMATCHED (BL30)', async () => {
    const { memberId, id } = await subscriber();
    await handle.db.transaction(async (tx) => {
      await queueStoreCancellations(tx, memberId);
      await tx.delete(member).where(eq(member.id, memberId));
    });
    expect(await notify('DID_RENEW', id)).toMatchObject({ status: 'PROCESSED', outcome: 'MEMBER_WITHDRAWN' });
  });

  it('DID_RENEW: the expiry moves on', async () => {
    const who = await subscriber();
    const renewed = days(40);
    apple.renew(who.id, renewed);
    await notify('DID_RENEW', who.id);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: renewed });
  });

  it('DID_FAIL_TO_RENEW with GRACE_PERIOD: PREMIUM through the grace period', async () => {
    const who = await subscriber({ expiresDate: days(-1) });
    const graceEnd = days(6);
    apple.update(who.id, { status: 4, gracePeriodExpiresDate: graceEnd });
    await notify('DID_FAIL_TO_RENEW', who.id, 'GRACE_PERIOD');
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: graceEnd });
    expect((await purchaseOf(who.id))!.state).toBe('IN_GRACE');

    // GRACE_PERIOD_EXPIRED: billing retry goes on, PREMIUM does not.
    apple.update(who.id, { status: 3, gracePeriodExpiresDate: undefined });
    await notify('GRACE_PERIOD_EXPIRED', who.id);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', sessionPlan: 'FREE' });
    expect((await purchaseOf(who.id))!.state).toBe('ON_HOLD');
  });

  it('DID_FAIL_TO_RENEW without a grace period: billing retry, FREE at once', async () => {
    const who = await subscriber({ expiresDate: days(-1) });
    apple.update(who.id, { status: 3 });
    await notify('DID_FAIL_TO_RENEW', who.id);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', planExpiresAt: null });
    expect((await purchaseOf(who.id))!.state).toBe('ON_HOLD');
  });

  it('EXPIRED: FREE, subscription info cleared', async () => {
    const who = await subscriber();
    apple.update(who.id, { status: 2, expiresDate: days(-1), autoRenew: false });
    await notify('EXPIRED', who.id, 'VOLUNTARY');
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', planProduct: null, planAutoRenew: false });
  });

  it('DID_CHANGE_RENEWAL_STATUS: auto-renew off, PREMIUM until the expiry; on again', async () => {
    const who = await subscriber();
    apple.update(who.id, { autoRenew: false });
    await notify('DID_CHANGE_RENEWAL_STATUS', who.id, 'AUTO_RENEW_DISABLED');
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planAutoRenew: false });
    expect((await purchaseOf(who.id))!.state).toBe('CANCELED');
    apple.update(who.id, { autoRenew: true });
    await notify('DID_CHANGE_RENEWAL_STATUS', who.id, 'AUTO_RENEW_ENABLED');
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planAutoRenew: true });
  });

  it('DID_CHANGE_RENEWAL_PREF: an upgrade (or a crossgrade of the same length) at once, a downgrade at the next renewal', async () => {
    const who = await subscriber();
    const yearEnd = days(365);
    apple.renew(who.id, yearEnd, YEARLY);
    await notify('DID_CHANGE_RENEWAL_PREF', who.id, 'UPGRADE');
    expect(await membershipOf(handle.db, who)).toMatchObject({ planProduct: 'premium_yearly', planExpiresAt: yearEnd });

    apple.update(who.id, { autoRenewProductId: MONTHLY });
    await notify('DID_CHANGE_RENEWAL_PREF', who.id, 'DOWNGRADE');
    expect(await membershipOf(handle.db, who)).toMatchObject({ planProduct: 'premium_yearly', planExpiresAt: yearEnd });
    expect((await purchaseOf(who.id))!.raw).toMatchObject({ nextStoreProductId: MONTHLY });

    // Changed back (no subtype): nothing waits any more; changed again and renewed: the new product from then.
    apple.update(who.id, { autoRenewProductId: YEARLY });
    await notify('DID_CHANGE_RENEWAL_PREF', who.id);
    expect((await purchaseOf(who.id))!.raw).toMatchObject({ nextStoreProductId: null });
    apple.update(who.id, { autoRenewProductId: MONTHLY });
    const monthEnd = days(395);
    apple.renew(who.id, monthEnd);
    await notify('DID_RENEW', who.id);
    expect(await membershipOf(handle.db, who)).toMatchObject({
      planProduct: 'premium_monthly',
      planExpiresAt: monthEnd,
    });
  });

  it('REFUND revokes at once; REFUND_REVERSED gives it back', async () => {
    const who = await subscriber();
    apple.revoke(who.id);
    expect(await notify('REFUND', who.id)).toMatchObject({ outcome: 'APPLIED' });
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', sessionPlan: 'FREE' });
    const refunded = await purchaseOf(who.id);
    expect(refunded).toMatchObject({ state: 'REVOKED', autoRenew: false });
    expect(refunded!.voidedAt).toBeInstanceOf(Date);

    apple.update(who.id, { status: 1, revocationDate: undefined, autoRenew: true });
    await notify('REFUND_REVERSED', who.id);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', sessionPlan: 'PREMIUM' });
    expect((await purchaseOf(who.id))!.voidedAt).toBeNull();
  });

  it('a refund after a renewal: the renewed period goes with it', async () => {
    const who = await subscriber();
    apple.renew(who.id, days(40));
    await notify('DID_RENEW', who.id);
    apple.revoke(who.id);
    await notify('REFUND', who.id);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE' });
  });

  it('REVOKE (Family Sharing withdrawn): FREE at once', async () => {
    const who = await subscriber({ ownership: 'FAMILY_SHARED' });
    apple.revoke(who.id);
    await notify('REVOKE', who.id);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE' });
  });

  it('RENEWAL_EXTENDED: PREMIUM until the later date', async () => {
    const who = await subscriber();
    const extended = days(55);
    apple.update(who.id, { expiresDate: extended });
    await notify('RENEWAL_EXTENDED', who.id);
    expect(await membershipOf(handle.db, who)).toMatchObject({ planExpiresAt: extended });
  });

  it('TEST and unknown types are kept, never an error', async () => {
    expect(await notify('TEST', null)).toMatchObject({ kind: 'TEST', status: 'PROCESSED', outcome: 'TEST' });
    const who = await subscriber();
    expect(await notify('SOMETHING_NEW', who.id)).toMatchObject({ status: 'PROCESSED', outcome: 'APPLIED' });
  });

  it('out of order: an old EXPIRED arriving after the renewal changes nothing (the store says renewed)', async () => {
    const who = await subscriber({ expiresDate: days(-1) });
    apple.update(who.id, { status: 2, autoRenew: false });
    const stale = await apple.notification('EXPIRED', who.id, 'VOLUNTARY');
    const renewed = days(30);
    apple.update(who.id, { autoRenew: true });
    apple.renew(who.id, renewed);
    const fresh = await apple.notification('SUBSCRIBED', who.id, 'RESUBSCRIBE');
    apple.latencyMs = 100;
    try {
      const ids = [
        await pushAppStore(handle.db, apple, fresh.signedPayload),
        await pushAppStore(handle.db, apple, stale.signedPayload),
        // The same notification again (Apple retries): stored once.
        await pushAppStore(handle.db, apple, fresh.signedPayload),
      ];
      for (const id of ids) await settledNotification(handle.db, id);
    } finally {
      apple.latencyMs = 0;
    }
    expect(apple.calls.maxConcurrentStatusesPerSubscription).toBe(1);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: renewed });
    const jobs = await handle.sql`select group_id from pgboss.job where name = 'store-notification'
      and data->>'notificationId' in (select id::text from store_notification
        where store = 'APP_STORE' and purchase_token = ${who.id})`;
    expect(jobs.map((job) => job.group_id)).toEqual([`appstore:${who.id}`, `appstore:${who.id}`]);
  });

  it('Apple’s API down: the notification is retried with backoff until it answers', async () => {
    const who = await subscriber();
    const renewed = days(33);
    apple.renew(who.id, renewed);
    apple.outage = 503;
    const { signedPayload } = await apple.notification('DID_RENEW', who.id);
    let messageId: string;
    try {
      messageId = await pushAppStore(handle.db, apple, signedPayload);
      const failed = await until(async () => {
        const row = await inboxRow(handle.db, messageId);
        return row.attempts >= 1 ? row : undefined;
      });
      expect(failed).toMatchObject({ status: 'DISPATCHED', error: expect.stringMatching(/503/) });
    } finally {
      apple.outage = null;
    }
    const done = await settledNotification(handle.db, messageId, 20_000);
    expect(done).toMatchObject({ status: 'PROCESSED', outcome: 'APPLIED' });
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    expect(await membershipOf(handle.db, who)).toMatchObject({ planExpiresAt: renewed });
  }, 40_000);

  describe('scheduled jobs', () => {
    const clock = { now: () => new Date() };
    function syncs() {
      const env = workerEnv(database.current.url, null, apple.env());
      const catalog = new ProductCatalog(env.BILLING_PRODUCTS);
      const gateway = new AppStoreGateway(appStoreConfigOf(env)!, false);
      const appStore = new AppStoreSync({ db: handle.db, gateway, catalog, clock, logger: silent });
      const sync = new MembershipSync({
        db: handle.db,
        store: null,
        catalog,
        clock,
        logger: silent,
        testMode: false,
        appStore,
      });
      return { sync, appStore, gateway };
    }

    it('the hourly expiry re-reads an auto-renewing App Store purchase past its expiry; Apple down → deferred', async () => {
      const { sync, appStore } = syncs();
      const renewing = await subscriber({ expiresDate: days(-0.01) });
      const renewed = days(30);
      apple.renew(renewing.id, renewed);
      const lapsed = await subscriber({ expiresDate: days(-0.01) });
      apple.update(lapsed.id, { status: 2, autoRenew: false });
      const run = () =>
        expireMemberships({ db: handle.db, sync, appStore, logger: silent, now: new Date(), storeConfigured: false });
      const summary = await run();
      expect(summary.reverified).toBeGreaterThanOrEqual(2);
      expect(await membershipOf(handle.db, renewing)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: renewed });
      expect(await membershipOf(handle.db, lapsed)).toMatchObject({ plan: 'FREE' });

      const deferred = await subscriber({ expiresDate: days(-0.01) });
      apple.outage = 503;
      try {
        expect((await run()).deferred).toBeGreaterThanOrEqual(1);
      } finally {
        apple.outage = null;
      }
      expect(await membershipOf(handle.db, deferred)).toMatchObject({ plan: 'PREMIUM' });
    });

    it('a sandbox grant made while sandbox purchases were allowed ends at its expiry once they are not (BL25)', async () => {
      const { sync, appStore } = syncs();
      const who = await subscriber({ expiresDate: days(-0.01), environment: 'Sandbox' });
      const id = who.id;
      apple.renew(id, days(30));
      await expireMemberships({
        db: handle.db,
        sync,
        appStore,
        logger: silent,
        now: new Date(),
        storeConfigured: false,
      });
      expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE' });
      expect(await purchaseOf(id)).toMatchObject({ autoRenew: false });
    });

    it('the daily notification history stores and applies what never arrived, once', async () => {
      const { gateway } = syncs();
      const who = await subscriber();
      const renewed = days(45);
      apple.renew(who.id, renewed);
      const missed = await apple.notification('DID_RENEW', who.id);
      const deps = { db: handle.db, gateway, logger: silent, now: new Date(), lookbackDays: 1 };
      const first = await recoverAppStoreNotifications(deps);
      expect(first.recovered).toBeGreaterThanOrEqual(1);
      expect(first.rejected).toBe(0);
      const row = await settledNotification(handle.db, missed.notificationUUID);
      expect(row).toMatchObject({ status: 'PROCESSED', outcome: 'APPLIED' });
      expect(await membershipOf(handle.db, who)).toMatchObject({ planExpiresAt: renewed });
      expect((await recoverAppStoreNotifications(deps)).recovered).toBe(0);
    });
  });
});
