import { storeCancellation } from '@nestegg/db';
import { FakeAppStore, FakeGooglePlay } from '@nestegg/membership/testing';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { APPLE_MONTHLY, bothStoresEnvironment, purchaseRows } from './billing.fixture.js';

const store = await FakeGooglePlay.start();
const apple = await FakeAppStore.start();
afterAll(async () => {
  await store.close();
  await apple.close();
});

const test = apiTest(bothStoresEnvironment(store, apple));
const DAY = 86_400_000;

describe('deleting a member with a live subscription (decision BL19)', () => {
  test('queues the store cancellation of each renewing purchase in the deleting transaction', async ({
    app,
    free,
    admin,
  }) => {
    const renewing = store.subscribe('premium_monthly', { expiryTime: new Date(Date.now() + 20 * DAY) });
    const stopped = store.subscribe('premium_yearly', { expiryTime: new Date(Date.now() + 200 * DAY) });
    for (const [productId, purchaseToken] of [
      ['premium_monthly', renewing],
      ['premium_yearly', stopped],
    ] as const) {
      bodyOf(await free.api.billing.verify({ body: { productId, purchaseToken } }), 200);
    }
    store.update(stopped, { state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false });
    bodyOf(await free.api.billing.restore(), 200);

    expect((await admin.api.admin.deleteMember({ params: { id: free.id } })).status).toBe(204);

    expect(await purchaseRows(app, renewing)).toEqual([]);
    const queued = await app.db.select().from(storeCancellation);
    expect(queued.map((row) => [row.store, row.purchaseToken, row.productId, row.doneAt])).toEqual([
      ['GOOGLE_PLAY', renewing, 'premium_monthly', null],
    ]);
  });

  test('an App Store subscription is not queued (Apple has no call to cancel it, BL27) but recorded as done (BL30)', async ({
    app,
    free,
    admin,
  }) => {
    const token = bodyOf(await free.api.billing.appStoreAccountToken(), 200).appAccountToken;
    const id = apple.subscribe(APPLE_MONTHLY, { appAccountToken: token });
    bodyOf(await free.api.billing.appStoreVerify({ body: { transactionId: id } }), 200);

    expect((await admin.api.admin.deleteMember({ params: { id: free.id } })).status).toBe(204);

    const rows = await app.db.select().from(storeCancellation).where(eq(storeCancellation.store, 'APP_STORE'));
    expect(rows).toEqual([expect.objectContaining({ purchaseToken: id, productId: 'premium_monthly', attempts: 0 })]);
    expect(rows[0]!.doneAt).toBeInstanceOf(Date);
  });
});
