import { storeCancellation } from '@nestegg/db';
import { FakeGooglePlay } from '@nestegg/membership/testing';
import { afterAll, describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { purchaseRows, storeEnvironment } from './billing.fixture.js';

const store = await FakeGooglePlay.start();
afterAll(() => store.close());

const test = apiTest(storeEnvironment(store));
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
    expect(queued.map((row) => [row.purchaseToken, row.productId, row.doneAt])).toEqual([
      [renewing, 'premium_monthly', null],
    ]);
  });
});
