/**
 * The membership rules as pure functions: how the store's subscription state maps to ours, which
 * purchases grant PREMIUM, and what a member's plan columns must say given their purchases.
 */
import type { IapPurchase, Member, MemberPlan, PurchaseState } from '@nestegg/db';
import type { SubscriptionPurchaseV2, SubscriptionState } from '../google-play/types.js';

const STATE_OF: Record<SubscriptionState, PurchaseState | null> = {
  SUBSCRIPTION_STATE_UNSPECIFIED: null,
  SUBSCRIPTION_STATE_PENDING: 'PENDING',
  SUBSCRIPTION_STATE_ACTIVE: 'ACTIVE',
  SUBSCRIPTION_STATE_PAUSED: 'PAUSED',
  SUBSCRIPTION_STATE_IN_GRACE_PERIOD: 'IN_GRACE',
  SUBSCRIPTION_STATE_ON_HOLD: 'ON_HOLD',
  SUBSCRIPTION_STATE_CANCELED: 'CANCELED',
  SUBSCRIPTION_STATE_EXPIRED: 'EXPIRED',
  // The pending payment never completed: nothing was granted and nothing will be.
  SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED: 'EXPIRED',
};

/** Our state for the store's; null for a state the store leaves unspecified (we keep what we had). */
export const purchaseStateOf = (state: SubscriptionState): PurchaseState | null => STATE_OF[state];

/**
 * States that keep PREMIUM until the expiry: active, in grace (the store retries the payment and the
 * member keeps access), cancelled (auto-renew off, paid until the expiry). On hold, paused, expired,
 * revoked and pending grant nothing.
 */
export const ENTITLING_STATES: readonly PurchaseState[] = ['ACTIVE', 'IN_GRACE', 'CANCELED'];

type Entitlement = Pick<IapPurchase, 'state' | 'expiresAt' | 'supersededAt' | 'voidedAt'>;

/** Whether a purchase grants PREMIUM at `now`. */
export function grantsPremium(purchase: Entitlement, now: Date): boolean {
  return (
    ENTITLING_STATES.includes(purchase.state) &&
    purchase.expiresAt !== null &&
    purchase.expiresAt.getTime() > now.getTime() &&
    purchase.supersededAt === null &&
    purchase.voidedAt === null
  );
}

export interface PlanColumns {
  plan: MemberPlan;
  planExpiresAt: Date | null;
  planProduct: string | null;
  planAutoRenew: boolean;
}

const FREE: PlanColumns = { plan: 'FREE', planExpiresAt: null, planProduct: null, planAutoRenew: false };

/** PREMIUM without an expiry: set by an admin, permanent; the store's purchases never take it away. */
export const isPermanentPremium = (member: PlanColumns): boolean =>
  member.plan === 'PREMIUM' && member.planExpiresAt === null;

/** The purchase that grants the longest PREMIUM at `now` (the newest among equals), or undefined. */
export function entitlingPurchase<P extends Entitlement & Pick<IapPurchase, 'id'>>(
  purchases: readonly P[],
  now: Date,
): P | undefined {
  let best: P | undefined;
  for (const purchase of purchases) {
    if (!grantsPremium(purchase, now)) continue;
    const better =
      !best ||
      purchase.expiresAt!.getTime() > best.expiresAt!.getTime() ||
      (purchase.expiresAt!.getTime() === best.expiresAt!.getTime() && purchase.id > best.id);
    if (better) best = purchase;
  }
  return best;
}

/**
 * What the member's plan columns must say: PREMIUM until the entitling purchase's expiry, with its
 * product and auto-renew; FREE with the subscription info cleared when nothing entitles. An admin's
 * permanent PREMIUM stays as it is.
 */
export function planFromPurchases(
  member: PlanColumns,
  purchases: readonly (Entitlement & Pick<IapPurchase, 'id' | 'productId' | 'autoRenew'>)[],
  now: Date,
): PlanColumns {
  if (isPermanentPremium(member)) return member;
  const best = entitlingPurchase(purchases, now);
  if (!best) return FREE;
  return { plan: 'PREMIUM', planExpiresAt: best.expiresAt, planProduct: best.productId, planAutoRenew: best.autoRenew };
}

export const samePlan = (a: PlanColumns, b: PlanColumns): boolean =>
  a.plan === b.plan &&
  (a.planExpiresAt?.getTime() ?? null) === (b.planExpiresAt?.getTime() ?? null) &&
  a.planProduct === b.planProduct &&
  a.planAutoRenew === b.planAutoRenew;

export const planColumnsOf = (row: Pick<Member, keyof PlanColumns>): PlanColumns => ({
  plan: row.plan,
  planExpiresAt: row.planExpiresAt,
  planProduct: row.planProduct,
  planAutoRenew: row.planAutoRenew,
});

/** What a store answer says about one purchase, in our columns. */
export interface StorePurchaseFacts {
  state: PurchaseState | null;
  productId: string | null;
  expiresAt: Date | null;
  autoRenew: boolean;
  orderId: string | null;
  linkedPurchaseToken: string | null;
  acknowledged: boolean;
}

/** Reads a `SubscriptionPurchaseV2`: the latest-expiring line item is the one that counts. */
export function factsOf(answer: SubscriptionPurchaseV2): StorePurchaseFacts {
  const expiry = (time: string | undefined) => (time ? Date.parse(time) : 0);
  const items = [...answer.lineItems].sort((a, b) => expiry(b.expiryTime) - expiry(a.expiryTime));
  const item = items[0];
  return {
    state: purchaseStateOf(answer.subscriptionState),
    productId: item?.productId ?? null,
    expiresAt: item?.expiryTime ? new Date(item.expiryTime) : null,
    autoRenew: item?.autoRenewingPlan?.autoRenewEnabled === true,
    orderId: item?.latestSuccessfulOrderId ?? answer.latestOrderId ?? null,
    linkedPurchaseToken: answer.linkedPurchaseToken ?? null,
    acknowledged: answer.acknowledgementState === 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
  };
}
