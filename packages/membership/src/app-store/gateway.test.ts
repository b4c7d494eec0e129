import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appStoreConfigOf, billingEnvShape } from '../config.js';
import { PurchaseNotFoundError, SignatureRejectedError, StoreUnavailableError } from '../errors.js';
import { FakeAppStore } from '../testing/fake-app-store.js';
import { AppStoreGateway } from './gateway.js';

function gatewayFor(store: FakeAppStore, overrides: Record<string, string> = {}, testMode = false) {
  const env = z.object(billingEnvShape).parse({ ...store.env(), ...overrides });
  return new AppStoreGateway(appStoreConfigOf({ ...env, NODE_ENV: 'test' })!, testMode);
}

describe('the App Store through Apple’s library', () => {
  let store: FakeAppStore;
  beforeAll(async () => {
    store = await FakeAppStore.start();
  });
  afterAll(() => store.close());

  it('verifies a signed transaction to the configured root and reads it', async () => {
    const token = randomUUID();
    const id = store.subscribe('app.nestegg.premium.monthly', { appAccountToken: token });
    const { environment, transaction } = await gatewayFor(store).verifyTransaction(await store.signedTransaction(id));
    expect(environment).toBe('Production');
    expect(transaction).toMatchObject({ originalTransactionId: id, appAccountToken: token, bundleId: store.bundleId });
  });

  it('refuses a forged chain, another bundle id, and Xcode-signed data outside test mode', async () => {
    const id = store.subscribe('app.nestegg.premium.monthly');
    const gateway = gatewayFor(store);
    await expect(gateway.verifyTransaction(await store.signedTransaction(id, { foreignChain: true }))).rejects.toThrow(
      SignatureRejectedError,
    );
    await expect(
      gateway.verifyTransaction(await store.signedTransaction(id, { claims: { bundleId: 'com.someone.else' } })),
    ).rejects.toThrow(/another app/);
    const xcode = await store.xcodeTransaction('app.nestegg.premium.monthly', randomUUID(), new Date(Date.now() + 1e9));
    await expect(gateway.verifyTransaction(xcode)).rejects.toThrow(/test mode only/);
    await expect(gatewayFor(store, {}, true).verifyTransaction(xcode)).resolves.toMatchObject({ environment: 'Xcode' });
    // A Sandbox-only server does not take production data.
    await expect(
      gatewayFor(store, { APPSTORE_ENVIRONMENT: 'Sandbox' }).verifyTransaction(await store.signedTransaction(id)),
    ).rejects.toThrow(SignatureRejectedError);
  });

  it('reads a subscription’s status, a transaction by id, and the notification history, with its signed JWT', async () => {
    const gateway = gatewayFor(store);
    const id = store.subscribe('app.nestegg.premium.yearly', { autoRenew: false });
    const status = await gateway.subscriptionStatus(id, 'Production');
    expect(status).toMatchObject({
      status: 1,
      transaction: { originalTransactionId: id },
      renewal: { autoRenewStatus: 0 },
    });
    expect((await gateway.transactionInfo(id)).transaction.productId).toBe('app.nestegg.premium.yearly');
    const sandboxed = store.subscribe('app.nestegg.premium.yearly', { environment: 'Sandbox' });
    expect(await gateway.transactionInfo(sandboxed)).toMatchObject({ environment: 'Sandbox' });
    await expect(gateway.subscriptionStatus('999', 'Production')).rejects.toThrow(PurchaseNotFoundError);
    const before = store.sent.length;
    for (let i = 0; i < 3; i += 1) await store.notification('DID_RENEW', id);
    const history = await gateway.notificationHistory({ start: new Date(Date.now() - 60_000), end: new Date() });
    expect(history.length).toBe(before + 3 - store.sent.filter((sent) => sent.environment === 'Sandbox').length);
  });

  it('verifies a notification with the transaction and renewal info inside; forged inner data does not pass', async () => {
    const gateway = gatewayFor(store);
    const id = store.subscribe('app.nestegg.premium.monthly');
    const { signedPayload, notificationUUID } = await store.notification('SUBSCRIBED', id, 'INITIAL_BUY');
    const verified = await gateway.verifyNotification(signedPayload);
    expect(verified.payload).toMatchObject({
      notificationType: 'SUBSCRIBED',
      subtype: 'INITIAL_BUY',
      notificationUUID,
    });
    expect(verified.transaction?.originalTransactionId).toBe(id);
    expect(verified.renewal?.autoRenewStatus).toBe(1);
    const forged = await store.notification('DID_RENEW', id, undefined, { innerForeignChain: true });
    await expect(gateway.verifyNotification(forged.signedPayload)).rejects.toThrow(SignatureRejectedError);
  });

  it('an API that is down, or a revocation check that cannot finish, is "unavailable" (retry)', async () => {
    const id = store.subscribe('app.nestegg.premium.monthly');
    store.outage = 503;
    try {
      await expect(gatewayFor(store).subscriptionStatus(id, 'Production')).rejects.toThrow(StoreUnavailableError);
    } finally {
      store.outage = null;
    }
    const online = gatewayFor(store, { APPSTORE_ONLINE_CHECKS: 'true' });
    store.ocsp = 'unavailable';
    try {
      await expect(online.verifyTransaction(await store.signedTransaction(id))).rejects.toThrow(StoreUnavailableError);
    } finally {
      store.ocsp = 'good';
    }
    expect(store.calls.ocsp).toBeGreaterThan(0);
  });

  it('a revocation check that does not answer is "unavailable" within STORE_TIMEOUT_MS, not the library’s 30 s (BL29)', async () => {
    const id = store.subscribe('app.nestegg.premium.monthly');
    const online = gatewayFor(store, { APPSTORE_ONLINE_CHECKS: 'true', STORE_TIMEOUT_MS: '300' });
    store.ocsp = 'silent';
    try {
      const started = Date.now();
      await expect(online.verifyTransaction(await store.signedTransaction(id))).rejects.toThrow(/within 300 ms/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      store.ocsp = 'good';
    }
  });

  it('with online checks, the certificates’ revocation status is asked (OCSP): good passes, revoked does not', async () => {
    const id = store.subscribe('app.nestegg.premium.monthly');
    const before = store.calls.ocsp;
    const online = gatewayFor(store, { APPSTORE_ONLINE_CHECKS: 'true' });
    await expect(online.verifyTransaction(await store.signedTransaction(id))).resolves.toMatchObject({
      transaction: { originalTransactionId: id },
    });
    // The leaf and the intermediate, each asked of the responder its issuer delegated to.
    expect(store.calls.ocsp - before).toBeGreaterThanOrEqual(2);
    store.ocsp = 'revoked';
    try {
      const fresh = gatewayFor(store, { APPSTORE_ONLINE_CHECKS: 'true' });
      await expect(fresh.verifyTransaction(await store.signedTransaction(id))).rejects.toThrow(SignatureRejectedError);
    } finally {
      store.ocsp = 'good';
    }
  });
});
