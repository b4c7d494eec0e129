import type { StorePurchase, Subscription, SubscriptionState } from '@nestegg/contract';
import { type Database, type IapPurchase, iapPurchase, member, type PurchaseStore } from '@nestegg/db';
import { ENTITLING_STATES, grantsPremium } from '@nestegg/membership';
import { and, desc, eq, isNull } from 'drizzle-orm';

/** Each store's subscription management page. */
export type ManageUrls = Record<PurchaseStore, string>;
/** The page where one purchase is managed (null for a test purchase, which no store knows). */
export type ManageUrlOf = (purchase: Pick<IapPurchase, 'store' | 'productId' | 'test'>) => string | null;

type Row = Pick<
  IapPurchase,
  'id' | 'store' | 'productId' | 'state' | 'expiresAt' | 'autoRenew' | 'supersededAt' | 'voidedAt' | 'sandbox' | 'test'
>;

const MAX_LISTED = 10;

/** A purchase's state as the member sees it: an entitling state past its expiry, not yet re-read, has lapsed. */
function stateOf(purchase: Row, grants: boolean): SubscriptionState {
  if (ENTITLING_STATES.includes(purchase.state) && !grants) return 'EXPIRED';
  return purchase.state;
}

/**
 * The member's plan columns and their purchases in every store (decision BL27): the subscription describes the
 * purchase that grants PREMIUM the longest, else the newest one (superseded purchases are history, not
 * "current"); `purchases` lists those that grant or renew, and the newest of each store.
 */
export async function readSubscription(
  db: Database,
  memberId: number,
  now: Date,
  manageUrlOf: ManageUrlOf,
): Promise<Subscription | null> {
  const [plan] = await db
    .select({
      plan: member.plan,
      planExpiresAt: member.planExpiresAt,
      planProduct: member.planProduct,
      planAutoRenew: member.planAutoRenew,
    })
    .from(member)
    .where(eq(member.id, memberId));
  if (!plan) return null;
  const rows: Row[] = await db
    .select({
      id: iapPurchase.id,
      store: iapPurchase.store,
      productId: iapPurchase.productId,
      state: iapPurchase.state,
      expiresAt: iapPurchase.expiresAt,
      autoRenew: iapPurchase.autoRenew,
      supersededAt: iapPurchase.supersededAt,
      voidedAt: iapPurchase.voidedAt,
      sandbox: iapPurchase.sandbox,
      test: iapPurchase.test,
    })
    .from(iapPurchase)
    .where(and(eq(iapPurchase.memberId, memberId), isNull(iapPurchase.supersededAt)))
    .orderBy(desc(iapPurchase.createdAt), desc(iapPurchase.id));
  const ranked = rows
    .map((row) => ({ row, grants: grantsPremium(row, now) }))
    .sort(
      (a, b) =>
        Number(b.grants) - Number(a.grants) ||
        (b.row.expiresAt?.getTime() ?? Number.NEGATIVE_INFINITY) -
          (a.row.expiresAt?.getTime() ?? Number.NEGATIVE_INFINITY) ||
        b.row.id - a.row.id,
    );
  const newestOfStore = new Set(
    (['GOOGLE_PLAY', 'APP_STORE'] as const).map((store) => rows.find((row) => row.store === store)?.id),
  );
  const listed = ranked
    .filter(({ row, grants }) => grants || (row.autoRenew && row.voidedAt === null) || newestOfStore.has(row.id))
    .slice(0, MAX_LISTED);
  const current = ranked[0];
  const expiresAt = plan.planExpiresAt === null ? null : plan.planExpiresAt.toISOString();
  const state: SubscriptionState = current ? stateOf(current.row, current.grants) : 'NONE';
  const renews = plan.plan === 'PREMIUM' && plan.planAutoRenew && (state === 'ACTIVE' || state === 'IN_GRACE');
  return {
    plan: plan.plan,
    planExpiresAt: expiresAt,
    nextBillingDate: renews ? expiresAt : null,
    autoRenew: plan.planAutoRenew,
    productId: plan.planProduct,
    state,
    store: current?.row.store ?? null,
    manageUrl: current ? manageUrlOf(current.row) : null,
    purchases: listed.map(
      ({ row, grants }): StorePurchase => ({
        store: row.store,
        productId: row.productId,
        state: stateOf(row, grants),
        expiresAt: row.expiresAt?.toISOString() ?? null,
        autoRenew: row.autoRenew,
        grantsPremium: grants,
        sandbox: row.sandbox,
        manageUrl: manageUrlOf(row),
      }),
    ),
  };
}
