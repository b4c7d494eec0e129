import { createDb, type DbHandle, iapPurchase } from '@nestegg/db';
import { GooglePlayClient, MembershipSync, ProductCatalog, storeApiConfigOf } from '@nestegg/membership';
import { FakeGooglePlay } from '@nestegg/membership/testing';
import { useTestDatabase } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPurchase, DAY, membershipOf, memberWithSession, silent, workerEnv } from './billing.fixture.js';
import { expireMemberships } from './membership-expiry.js';

const store = await FakeGooglePlay.start();

describe('hourly membership expiry', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  const clock = { now: () => new Date() };

  function syncFor(options: { testMode?: boolean; withStore?: boolean } = {}) {
    const env = workerEnv(database.current.url, options.withStore === false ? null : store);
    const config = storeApiConfigOf(env);
    return new MembershipSync({
      db: handle.db,
      store: config ? new GooglePlayClient(config, clock) : null,
      catalog: new ProductCatalog(env.BILLING_PRODUCTS),
      clock,
      logger: silent,
      testMode: options.testMode ?? false,
    });
  }

  const run = (sync: MembershipSync, storeConfigured = true) =>
    expireMemberships({ db: handle.db, sync, logger: silent, now: new Date(), storeConfigured });

  beforeAll(() => {
    handle = createDb(database.current.url, { max: 3 });
  });
  afterAll(async () => {
    await handle?.close();
    await store.close();
  });

  async function premium(autoRenew: boolean, expiresAt: Date, purchase?: { token: string; test?: boolean }) {
    const who = await memberWithSession(handle.db, {
      plan: 'PREMIUM',
      planExpiresAt: expiresAt,
      planProduct: 'premium_monthly',
      planAutoRenew: autoRenew,
    });
    if (purchase) {
      await addPurchase(handle.db, {
        memberId: who.memberId,
        productId: 'premium_monthly',
        purchaseToken: purchase.token,
        state: autoRenew ? 'ACTIVE' : 'CANCELED',
        autoRenew,
        expiresAt,
        test: purchase.test ?? false,
        acknowledgedAt: new Date(),
      });
    }
    return who;
  }

  it('auto-renew off and expiry passed: FREE, subscription info cleared, sessions updated, no store call', async () => {
    const token = store.subscribe('premium_monthly', { state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false });
    const lapsed = await premium(false, new Date(Date.now() - 60_000), { token });
    const current = await premium(false, new Date(Date.now() + DAY));
    const gets = store.calls.gets.length;

    const summary = await run(syncFor());

    expect(summary.downgraded).toBeGreaterThanOrEqual(1);
    expect(store.calls.gets.length).toBe(gets);
    expect(await membershipOf(handle.db, lapsed)).toMatchObject({
      plan: 'FREE',
      planExpiresAt: null,
      planProduct: null,
      planAutoRenew: false,
      sessionPlan: 'FREE',
      sessionInvalidated: true,
    });
    expect(await membershipOf(handle.db, current)).toMatchObject({ plan: 'PREMIUM', sessionPlan: 'PREMIUM' });
  });

  it('auto-renew on and expiry passed: not downgraded blindly; the store renewed it, so PREMIUM until the new expiry', async () => {
    const renewedUntil = new Date(Date.now() + 30 * DAY);
    const token = store.subscribe('premium_monthly', { expiryTime: renewedUntil, acknowledged: true });
    const who = await premium(true, new Date(Date.now() - 60_000), { token });

    const summary = await run(syncFor());

    expect(summary.reverified).toBeGreaterThanOrEqual(1);
    expect(store.calls.gets).toContain(token);
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: renewedUntil });
  });

  it('auto-renew on and the store says it lapsed: FREE with the sessions', async () => {
    const token = store.subscribe('premium_monthly', {
      state: 'SUBSCRIPTION_STATE_EXPIRED',
      autoRenew: false,
      expiryTime: new Date(Date.now() - 60_000),
    });
    const who = await premium(true, new Date(Date.now() - 60_000), { token });
    await run(syncFor());
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', sessionPlan: 'FREE' });
    const [purchase] = await handle.db.select().from(iapPurchase).where(eq(iapPurchase.purchaseToken, token));
    expect(purchase).toMatchObject({ state: 'EXPIRED', autoRenew: false });
  });

  it('auto-renew on and the store cannot be asked: left PREMIUM for the next run', async () => {
    const token = store.subscribe('premium_monthly');
    const who = await premium(true, new Date(Date.now() - 60_000), { token });
    store.failingTokens.add(token);
    try {
      const summary = await run(syncFor());
      expect(summary.deferred).toBeGreaterThanOrEqual(1);
    } finally {
      store.failingTokens.delete(token);
    }
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM' });
  });

  it('test-mode purchases renew by whole periods in test mode, and lapse without it', async () => {
    const expired = new Date(Date.now() - 40 * DAY);
    const renewing = await premium(true, expired, { token: `test-renew-${Date.now()}`, test: true });
    await run(syncFor({ testMode: true }));
    const renewed = await membershipOf(handle.db, renewing);
    expect(renewed.plan).toBe('PREMIUM');
    expect(renewed.planExpiresAt!.getTime()).toBeGreaterThan(Date.now());
    expect(renewed.planExpiresAt!.getTime()).toBeLessThan(Date.now() + 32 * DAY);

    const lapsing = await premium(true, new Date(Date.now() - 60_000), {
      token: `test-lapse-${Date.now()}`,
      test: true,
    });
    await run(syncFor({ testMode: false }));
    expect(await membershipOf(handle.db, lapsing)).toMatchObject({ plan: 'FREE' });
  });

  it("an admin's permanent PREMIUM has no expiry and is never touched", async () => {
    const who = await memberWithSession(handle.db, { plan: 'PREMIUM' });
    await run(syncFor());
    expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'PREMIUM', planExpiresAt: null });
  });
});
