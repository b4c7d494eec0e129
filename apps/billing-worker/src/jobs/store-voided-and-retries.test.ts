import { createDb, type DbHandle, iapPurchase, storeCancellation } from '@nestegg/db';
import { GooglePlayClient, MembershipSync, ProductCatalog, storeApiConfigOf } from '@nestegg/membership';
import { FakeGooglePlay } from '@nestegg/membership/testing';
import { useTestDatabase } from '@nestegg/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPurchase, DAY, membershipOf, memberWithSession, silent, workerEnv } from './billing.fixture.js';
import { acknowledgePending, cancelWithdrawnSubscriptions } from './store-retries.js';
import { revokeVoidedPurchases } from './store-voided-purchases.js';

const store = await FakeGooglePlay.start({ voidedPageSize: 2 });

describe('store safety nets', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  let client: GooglePlayClient;
  let sync: MembershipSync;
  const clock = { now: () => new Date() };

  beforeAll(() => {
    handle = createDb(database.current.url, { max: 3 });
    const env = workerEnv(database.current.url, store);
    client = new GooglePlayClient(storeApiConfigOf(env)!, clock);
    sync = new MembershipSync({
      db: handle.db,
      store: client,
      catalog: new ProductCatalog(env.BILLING_PRODUCTS),
      clock,
      logger: silent,
      testMode: false,
    });
  });
  afterAll(async () => {
    await handle?.close();
    await store.close();
  });

  async function subscriber(acknowledged = true) {
    const expiresAt = new Date(Date.now() + 10 * DAY);
    const who = await memberWithSession(handle.db, {
      plan: 'PREMIUM',
      planExpiresAt: expiresAt,
      planProduct: 'premium_monthly',
      planAutoRenew: true,
    });
    const token = store.subscribe('premium_monthly', { expiryTime: expiresAt, acknowledged });
    await addPurchase(handle.db, {
      memberId: who.memberId,
      productId: 'premium_monthly',
      purchaseToken: token,
      state: 'ACTIVE',
      autoRenew: true,
      expiresAt,
      acknowledgedAt: acknowledged ? new Date() : null,
    });
    return { ...who, token };
  }

  it('daily voided purchases poll: refunds a notification missed are revoked at once, idempotently, every page', async () => {
    const refunded = await subscriber();
    const chargedBack = await subscriber();
    const untouched = await subscriber();
    store.voidPurchase(refunded.token, new Date(Date.now() - 2 * DAY));
    store.voidPurchase(chargedBack.token, new Date(Date.now() - 3600_000));
    store.voidPurchase('someone-elses-coins', new Date(Date.now() - 3600_000));

    const first = await revokeVoidedPurchases(client, sync, { now: new Date(), lookbackDays: 30 });
    expect(first).toMatchObject({ listed: 3, REVOKED: 2, UNMATCHED: 1 });
    for (const who of [refunded, chargedBack]) {
      expect(await membershipOf(handle.db, who)).toMatchObject({ plan: 'FREE', sessionPlan: 'FREE' });
    }
    expect(await membershipOf(handle.db, untouched)).toMatchObject({ plan: 'PREMIUM' });
    const [purchase] = await handle.db.select().from(iapPurchase).where(eq(iapPurchase.purchaseToken, refunded.token));
    expect(purchase!.voidedAt!.getTime()).toBe(store.voided[0]!.voidedTime.getTime());

    const again = await revokeVoidedPurchases(client, sync, { now: new Date(), lookbackDays: 30 });
    expect(again).toMatchObject({ listed: 3, REVOKED: 0, ALREADY_REVOKED: 2 });
  });

  it('acknowledgements that failed at verify are retried until they hold', async () => {
    const who = await subscriber(false);
    store.acknowledgementOutage = 503;
    const failing = await acknowledgePending({ db: handle.db, store: client, sync, logger: silent, now: new Date() });
    expect(failing.failed).toBeGreaterThanOrEqual(1);
    store.acknowledgementOutage = null;
    const retried = await acknowledgePending({ db: handle.db, store: client, sync, logger: silent, now: new Date() });
    expect(retried.acknowledged).toBeGreaterThanOrEqual(1);
    expect(store.subscriptions.get(who.token)!.acknowledged).toBe(true);
    const [purchase] = await handle.db.select().from(iapPurchase).where(eq(iapPurchase.purchaseToken, who.token));
    expect(purchase!.acknowledgedAt).toBeInstanceOf(Date);
    const nothingLeft = await acknowledgePending({
      db: handle.db,
      store: client,
      sync,
      logger: silent,
      now: new Date(),
    });
    expect(nothingLeft).toEqual({ acknowledged: 0, failed: 0 });
  });

  it("a withdrawn member's subscriptions are cancelled in the store, retried until it holds", async () => {
    const token = store.subscribe('premium_monthly');
    await handle.db.insert(storeCancellation).values([
      { purchaseToken: token, productId: 'premium_monthly' },
      { purchaseToken: 'forgotten-by-the-store', productId: 'premium_monthly' },
    ]);
    store.outage = 503;
    const deps = { db: handle.db, store: client, sync, logger: silent, now: new Date() };
    expect(await cancelWithdrawnSubscriptions(deps)).toEqual({ cancelled: 0, failed: 2 });
    store.outage = null;
    expect(await cancelWithdrawnSubscriptions(deps)).toEqual({ cancelled: 1, failed: 0 });
    expect(store.subscriptions.get(token)).toMatchObject({ state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false });
    const rows = await handle.db.select().from(storeCancellation);
    expect(rows.every((row) => row.doneAt !== null)).toBe(true);
    expect(rows.find((row) => row.purchaseToken === token)).toMatchObject({ attempts: 2, lastError: null });
    expect(await cancelWithdrawnSubscriptions(deps)).toEqual({ cancelled: 0, failed: 0 });
  });
});
