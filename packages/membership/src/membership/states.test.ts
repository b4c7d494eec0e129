import { describe, expect, it } from 'vitest';
import { readDeveloperNotification } from '../google-play/notifications.js';
import { addPeriods } from '../products.js';
import { factsOf, planFromPurchases, purchaseStateOf } from './states.js';

const now = new Date('2026-03-10T00:00:00Z');
const later = new Date('2026-04-10T00:00:00Z');
const earlier = new Date('2026-02-10T00:00:00Z');
const free = { plan: 'FREE' as const, planExpiresAt: null, planProduct: null, planAutoRenew: false };
const purchase = (overrides: Record<string, unknown> = {}) => ({
  id: 1,
  productId: 'premium_monthly',
  state: 'ACTIVE' as const,
  expiresAt: later,
  autoRenew: true,
  supersededAt: null,
  voidedAt: null,
  ...overrides,
});

describe('membership rules', () => {
  it('maps every store state: active, grace and cancelled entitle until expiry; the others do not', () => {
    expect(purchaseStateOf('SUBSCRIPTION_STATE_ACTIVE')).toBe('ACTIVE');
    expect(purchaseStateOf('SUBSCRIPTION_STATE_IN_GRACE_PERIOD')).toBe('IN_GRACE');
    expect(purchaseStateOf('SUBSCRIPTION_STATE_CANCELED')).toBe('CANCELED');
    expect(purchaseStateOf('SUBSCRIPTION_STATE_ON_HOLD')).toBe('ON_HOLD');
    expect(purchaseStateOf('SUBSCRIPTION_STATE_PAUSED')).toBe('PAUSED');
    expect(purchaseStateOf('SUBSCRIPTION_STATE_EXPIRED')).toBe('EXPIRED');
    expect(purchaseStateOf('SUBSCRIPTION_STATE_PENDING')).toBe('PENDING');
    expect(purchaseStateOf('SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED')).toBe('EXPIRED');
    expect(purchaseStateOf('SUBSCRIPTION_STATE_UNSPECIFIED')).toBeNull();
    for (const state of ['ACTIVE', 'IN_GRACE', 'CANCELED'] as const) {
      expect(planFromPurchases(free, [purchase({ state })], now).plan).toBe('PREMIUM');
    }
    for (const state of ['ON_HOLD', 'PAUSED', 'EXPIRED', 'REVOKED', 'PENDING'] as const) {
      expect(planFromPurchases(free, [purchase({ state })], now)).toEqual(free);
    }
  });

  it('takes the longest entitlement, ignores superseded, voided and lapsed purchases', () => {
    const plan = planFromPurchases(
      free,
      [
        purchase({ id: 1, expiresAt: later, productId: 'premium_monthly' }),
        purchase({ id: 2, expiresAt: new Date('2027-01-01T00:00:00Z'), productId: 'premium_yearly', autoRenew: false }),
        purchase({ id: 3, expiresAt: new Date('2028-01-01T00:00:00Z'), supersededAt: now }),
        purchase({ id: 4, expiresAt: new Date('2028-01-01T00:00:00Z'), voidedAt: now }),
        purchase({ id: 5, expiresAt: earlier }),
      ],
      now,
    );
    expect(plan).toEqual({
      plan: 'PREMIUM',
      planExpiresAt: new Date('2027-01-01T00:00:00Z'),
      planProduct: 'premium_yearly',
      planAutoRenew: false,
    });
  });

  it("never takes away an admin's permanent PREMIUM", () => {
    const permanent = { plan: 'PREMIUM' as const, planExpiresAt: null, planProduct: null, planAutoRenew: false };
    expect(planFromPurchases(permanent, [purchase({ state: 'REVOKED' })], now)).toBe(permanent);
  });

  it('reads the latest-expiring line item of a store answer', () => {
    const facts = factsOf({
      subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
      acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
      linkedPurchaseToken: 'old',
      lineItems: [
        { productId: 'a', expiryTime: '2026-05-01T00:00:00.5Z' },
        { productId: 'b', expiryTime: '2026-06-01T00:00:00Z', autoRenewingPlan: { autoRenewEnabled: true } },
      ],
    });
    expect(facts).toMatchObject({ productId: 'b', autoRenew: true, acknowledged: true, linkedPurchaseToken: 'old' });
  });

  it('adds whole months, clamped to the month end', () => {
    expect(addPeriods(new Date('2026-01-31T10:00:00Z'), 'MONTHLY').toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addPeriods(new Date('2024-02-29T00:00:00Z'), 'YEARLY').toISOString()).toBe('2025-02-28T00:00:00.000Z');
  });
});

describe('reading a real-time developer notification', () => {
  const encode = (value: unknown) =>
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
  const base = { version: '1.0', packageName: 'app.nestegg', eventTimeMillis: '1' };

  it('classifies subscription, voided, one-time and test notifications', () => {
    const sub = {
      ...base,
      subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: 't', subscriptionId: 'p' },
    };
    expect(readDeveloperNotification(encode(sub), 'app.nestegg')).toEqual({
      kind: 'SUBSCRIPTION',
      notificationType: 4,
      purchaseToken: 't',
      error: null,
    });
    const voided = {
      ...base,
      voidedPurchaseNotification: { purchaseToken: 'v', orderId: 'o', productType: 1, refundType: 1 },
    };
    expect(readDeveloperNotification(encode(voided), 'app.nestegg')).toMatchObject({
      kind: 'VOIDED_PURCHASE',
      purchaseToken: 'v',
    });
    const oneTime = {
      ...base,
      oneTimeProductNotification: { version: '1.0', notificationType: 1, purchaseToken: 'o', sku: 's' },
    };
    expect(readDeveloperNotification(encode(oneTime), 'app.nestegg')).toMatchObject({ kind: 'ONE_TIME_PRODUCT' });
    expect(
      readDeveloperNotification(encode({ ...base, testNotification: { version: '1.0' } }), 'app.nestegg'),
    ).toMatchObject({
      kind: 'TEST',
      error: null,
    });
  });

  it('keeps an error for a malformed payload or another package, without throwing', () => {
    expect(readDeveloperNotification(encode('not json'), 'app.nestegg').error).toMatch(/not a readable/);
    expect(readDeveloperNotification(encode({ ...base }), 'app.nestegg').error).toMatch(/no notification/);
    const other = { ...base, packageName: 'com.other', testNotification: { version: '1.0' } };
    expect(readDeveloperNotification(encode(other), 'app.nestegg')).toMatchObject({
      kind: 'TEST',
      error: expect.stringMatching(/another package/),
    });
  });
});
