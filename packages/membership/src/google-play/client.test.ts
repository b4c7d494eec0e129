import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { billingEnvShape, storeApiConfigOf } from '../config.js';
import { PurchaseNotFoundError, StoreUnavailableError } from '../errors.js';
import { FakeGooglePlay } from '../testing/fake-store.js';
import { GooglePlayClient } from './client.js';

const systemClock = { now: () => new Date() };

function clientFor(store: FakeGooglePlay, overrides: Record<string, string> = {}) {
  const env = z.object(billingEnvShape).parse({ ...store.env(), ...overrides });
  return new GooglePlayClient(storeApiConfigOf({ ...env, NODE_ENV: 'test' })!, systemClock);
}

describe('Google Play Developer API client', () => {
  let store: FakeGooglePlay;
  beforeAll(async () => {
    store = await FakeGooglePlay.start({ voidedPageSize: 2 });
  });
  afterAll(() => store.close());

  it('signs in as the service account once and reuses the access token until it expires', async () => {
    const client = clientFor(store);
    const token = store.subscribe('premium_monthly');
    const before = store.calls.tokenExchanges;
    const [first, second] = await Promise.all([client.getSubscription(token), client.getSubscription(token)]);
    await client.getSubscription(token);
    expect(store.calls.tokenExchanges - before).toBe(1);
    expect(first.subscriptionState).toBe('SUBSCRIPTION_STATE_ACTIVE');
    expect(second.lineItems[0]).toMatchObject({
      productId: 'premium_monthly',
      autoRenewingPlan: { autoRenewEnabled: true },
    });
  });

  it('exchanges a new access token when the API refuses the cached one', async () => {
    const client = clientFor(store);
    const token = store.subscribe('premium_monthly');
    await client.getSubscription(token);
    store.revokeAccessTokens();
    const before = store.calls.tokenExchanges;
    await expect(client.getSubscription(token)).resolves.toMatchObject({
      acknowledgementState: 'ACKNOWLEDGEMENT_STATE_PENDING',
    });
    expect(store.calls.tokenExchanges - before).toBe(1);
  });

  it('acknowledges and cancels through the store', async () => {
    const client = clientFor(store);
    const token = store.subscribe('premium_yearly');
    await client.acknowledge('premium_yearly', token);
    await client.cancel(token, 'USER_REQUESTED_STOP_RENEWALS');
    expect(store.subscriptions.get(token)).toMatchObject({
      acknowledged: true,
      autoRenew: false,
      state: 'SUBSCRIPTION_STATE_CANCELED',
    });
  });

  it('tells an unknown purchase apart from an unavailable store', async () => {
    const client = clientFor(store);
    await expect(client.getSubscription('no-such-token')).rejects.toBeInstanceOf(PurchaseNotFoundError);
    const token = store.subscribe('premium_monthly');
    store.outage = 503;
    try {
      await expect(client.getSubscription(token)).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      store.outage = null;
    }
  });

  it('gives up on a store slower than the time limit', async () => {
    const client = clientFor(store, { STORE_TIMEOUT_MS: '200' });
    const token = store.subscribe('premium_monthly');
    store.latencyMs = 1000;
    try {
      await expect(client.getSubscription(token)).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      store.latencyMs = 0;
    }
  });

  it('refuses a service account key the token endpoint does not accept', async () => {
    const other = await FakeGooglePlay.start();
    try {
      const client = clientFor(store, {
        STORE_SERVICE_ACCOUNT_PRIVATE_KEY: other.env().STORE_SERVICE_ACCOUNT_PRIVATE_KEY!,
      });
      await expect(client.getSubscription('x')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await other.close();
    }
  });

  it('lists voided purchases in the window, following every page', async () => {
    const client = clientFor(store);
    const now = Date.now();
    for (const token of ['v1', 'v2', 'v3']) store.voidPurchase(token, new Date(now - 60_000));
    store.voidPurchase('old', new Date(now - 40 * 86_400_000));
    const voided = await client.listVoidedPurchases({ start: new Date(now - 86_400_000), end: new Date(now) });
    expect(voided.map((entry) => entry.purchaseToken).sort()).toEqual(['v1', 'v2', 'v3']);
  });
});
