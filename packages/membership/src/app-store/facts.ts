/**
 * What the App Store says about one subscription, in our columns: the one state model both stores share
 * (decision BL26). Get All Subscription Statuses' status and the renewal info decide the state; the latest
 * transaction gives the product, the expiry and the revocation.
 */
import type { JWSRenewalInfoDecodedPayload, JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import type { PurchaseState } from '@nestegg/db';
import type { AppStoreEnvironment } from './gateway.js';

export const AUTO_RENEWABLE = 'Auto-Renewable Subscription';

export interface AppStoreFacts {
  originalTransactionId: string;
  /** The App Store's product id of the latest transaction. */
  storeProductId: string;
  state: PurchaseState;
  /** The end of the paid period, or of the grace period while in it. */
  expiresAt: Date | null;
  autoRenew: boolean;
  /** The latest transaction's id. */
  orderId: string | null;
  appAccountToken: string | null;
  familyShared: boolean;
  environment: AppStoreEnvironment;
  /** Refunded or withdrawn from family sharing: grants nothing from this instant. */
  revokedAt: Date | null;
  /** The product the next renewal is for, when it differs (a downgrade or crossgrade waiting). */
  nextStoreProductId: string | null;
  /** Kept in `iap_purchase.raw`. */
  raw: Record<string, unknown>;
}

/** Our state for the App Store's: 1 active (cancelled when auto-renew is off), 2 expired, 3 billing retry (ON_HOLD), 4 grace, 5 revoked. */
function stateOf(status: number, autoRenew: boolean): PurchaseState {
  switch (status) {
    case 1:
      return autoRenew ? 'ACTIVE' : 'CANCELED';
    case 3:
      return 'ON_HOLD';
    case 4:
      return 'IN_GRACE';
    case 5:
      return 'REVOKED';
    default:
      return 'EXPIRED';
  }
}

const instant = (millis: number | undefined): Date | null => (typeof millis === 'number' ? new Date(millis) : null);

/**
 * Reads a subscription from its status, latest transaction and renewal info. Without a status (Xcode-signed
 * transactions have no server API behind them) it is worked out from the transaction at `now`.
 */
export function appStoreFactsOf(input: {
  status: number | null;
  transaction: JWSTransactionDecodedPayload;
  renewal: JWSRenewalInfoDecodedPayload | null;
  environment: AppStoreEnvironment;
  now: Date;
}): AppStoreFacts {
  const { transaction, renewal } = input;
  const revokedAt = instant(transaction.revocationDate);
  const expires = instant(transaction.expiresDate);
  const status = input.status ?? (revokedAt ? 5 : expires && expires.getTime() > input.now.getTime() ? 1 : 2);
  const renewing = renewal ? renewal.autoRenewStatus === 1 : status === 1;
  const state = revokedAt ? 'REVOKED' : stateOf(status, renewing);
  const grace = instant(renewal?.gracePeriodExpiresDate);
  const storeProductId = transaction.productId ?? '';
  const next = renewal?.autoRenewProductId ?? null;
  return {
    originalTransactionId: transaction.originalTransactionId ?? '',
    storeProductId,
    state,
    expiresAt: state === 'IN_GRACE' && grace ? grace : expires,
    autoRenew: renewing && ['ACTIVE', 'IN_GRACE', 'ON_HOLD'].includes(state),
    orderId: transaction.transactionId ?? null,
    appAccountToken: transaction.appAccountToken ?? null,
    familyShared: transaction.inAppOwnershipType === 'FAMILY_SHARED',
    environment: input.environment,
    revokedAt,
    nextStoreProductId: next && next !== storeProductId ? next : null,
    raw: { status, transaction, ...(renewal ? { renewal } : {}) },
  };
}
