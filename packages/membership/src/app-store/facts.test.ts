import { describe, expect, it } from 'vitest';
import { planFromPurchases } from '../membership/states.js';
import { appStoreFactsOf } from './facts.js';

const now = new Date('2026-05-14T00:00:00Z');
const at = (days: number) => now.getTime() + days * 86_400_000;
const transaction = (overrides: Record<string, unknown> = {}) => ({
  originalTransactionId: '2000000861234567',
  transactionId: '2000000861234599',
  productId: 'app.nestegg.premium.monthly',
  type: 'Auto-Renewable Subscription',
  expiresDate: at(20),
  inAppOwnershipType: 'PURCHASED',
  appAccountToken: '5f1c8e2a-7b3d-4c9e-a6f0-2d8b4e7c1a93',
  ...overrides,
});
const renewal = (overrides: Record<string, unknown> = {}) => ({
  autoRenewStatus: 1,
  autoRenewProductId: 'app.nestegg.premium.monthly',
  ...overrides,
});
const facts = (status: number | null, t = transaction(), r: ReturnType<typeof renewal> | null = renewal()) =>
  appStoreFactsOf({ status, transaction: t as never, renewal: r as never, environment: 'Production', now });
const free = { plan: 'FREE' as const, planExpiresAt: null, planProduct: null, planAutoRenew: false };
const grants = (f: ReturnType<typeof facts>) =>
  planFromPurchases(
    free,
    [
      {
        id: 1,
        productId: 'p',
        state: f.state,
        expiresAt: f.expiresAt,
        autoRenew: f.autoRenew,
        supersededAt: null,
        voidedAt: f.revokedAt,
      },
    ],
    now,
  ).plan;

describe('the App Store in the one state model (BL26)', () => {
  it('maps each status: active (cancelled when auto-renew is off), grace, billing retry, expired, revoked', () => {
    expect(facts(1)).toMatchObject({ state: 'ACTIVE', autoRenew: true, orderId: '2000000861234599' });
    expect(facts(1, transaction(), renewal({ autoRenewStatus: 0 }))).toMatchObject({
      state: 'CANCELED',
      autoRenew: false,
    });
    const grace = facts(4, transaction({ expiresDate: at(-1) }), renewal({ gracePeriodExpiresDate: at(6) }));
    expect(grace).toMatchObject({ state: 'IN_GRACE', expiresAt: new Date(at(6)), autoRenew: true });
    expect(facts(3, transaction({ expiresDate: at(-1) }))).toMatchObject({ state: 'ON_HOLD' });
    expect(facts(2, transaction({ expiresDate: at(-1) }), renewal({ autoRenewStatus: 0 }))).toMatchObject({
      state: 'EXPIRED',
      autoRenew: false,
    });
    const revoked = facts(5, transaction({ revocationDate: at(-2) }));
    expect(revoked).toMatchObject({ state: 'REVOKED', revokedAt: new Date(at(-2)), autoRenew: false });
  });

  it('active, cancelled and grace grant PREMIUM; billing retry, expired and revoked do not', () => {
    expect(grants(facts(1))).toBe('PREMIUM');
    expect(grants(facts(1, transaction(), renewal({ autoRenewStatus: 0 })))).toBe('PREMIUM');
    expect(grants(facts(4, transaction({ expiresDate: at(-1) }), renewal({ gracePeriodExpiresDate: at(6) })))).toBe(
      'PREMIUM',
    );
    expect(grants(facts(3, transaction({ expiresDate: at(-1) })))).toBe('FREE');
    expect(grants(facts(2, transaction({ expiresDate: at(-1) })))).toBe('FREE');
    // A refunded latest transaction revokes, whatever the status still says.
    expect(grants(facts(1, transaction({ revocationDate: at(-1) })))).toBe('FREE');
  });

  it('keeps a downgrade waiting for the renewal, and who it is for', () => {
    const waiting = facts(1, transaction({ productId: 'app.nestegg.premium.yearly' }), renewal());
    expect(waiting).toMatchObject({
      storeProductId: 'app.nestegg.premium.yearly',
      nextStoreProductId: 'app.nestegg.premium.monthly',
      appAccountToken: '5f1c8e2a-7b3d-4c9e-a6f0-2d8b4e7c1a93',
      familyShared: false,
    });
    expect(facts(1, transaction({ inAppOwnershipType: 'FAMILY_SHARED' })).familyShared).toBe(true);
  });

  it('without a status (Xcode): active until the expiry, then expired', () => {
    expect(facts(null, transaction(), null)).toMatchObject({ state: 'ACTIVE', autoRenew: true });
    expect(facts(null, transaction({ expiresDate: at(-1) }), null)).toMatchObject({
      state: 'EXPIRED',
      autoRenew: false,
    });
  });
});
