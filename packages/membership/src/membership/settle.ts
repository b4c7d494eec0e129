/**
 * Database steps every membership change shares: the per-token lock, the member locks, and settling a
 * member's plan columns from their purchases (with the sessions following in the same transaction).
 */
import { type DbOrTx, type IapPurchase, iapPurchase, member, type PurchaseStore } from '@nestegg/db';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { writePlanToSessions } from './sessions.js';
import { type PlanColumns, planColumnsOf, planFromPurchases, samePlan } from './states.js';

/** The advisory lock key of one purchase: Google Play's token, the App Store's original transaction id. */
export const purchaseLockKey = (purchaseToken: string, store: PurchaseStore = 'GOOGLE_PLAY'): string =>
  store === 'GOOGLE_PLAY' ? `nestegg.store-purchase:${purchaseToken}` : `nestegg.appstore-purchase:${purchaseToken}`;

/**
 * Serialises everything that applies a store state to one purchase (verify, notifications, expiry, restore,
 * cancel), across api instances and workers, until the transaction ends.
 */
export async function lockPurchaseToken(
  tx: DbOrTx,
  purchaseToken: string,
  store: PurchaseStore = 'GOOGLE_PLAY',
): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${purchaseLockKey(purchaseToken, store)}, 0))`);
}

export async function purchaseByToken(
  tx: DbOrTx,
  purchaseToken: string,
  store: PurchaseStore = 'GOOGLE_PLAY',
): Promise<IapPurchase | undefined> {
  const [row] = await tx
    .select()
    .from(iapPurchase)
    .where(and(eq(iapPurchase.store, store), eq(iapPurchase.purchaseToken, purchaseToken)));
  return row;
}

/**
 * Locks the members' rows in id order (the order every membership change uses, so two changes never
 * deadlock) before their purchases are written. Returns the ids that still exist.
 */
export async function lockMembers(tx: DbOrTx, memberIds: readonly (number | null | undefined)[]): Promise<number[]> {
  const ids = [...new Set(memberIds.filter((id): id is number => typeof id === 'number'))].sort((a, b) => a - b);
  if (ids.length === 0) return [];
  const rows = await tx
    .select({ id: member.id })
    .from(member)
    .where(inArray(member.id, ids))
    .orderBy(asc(member.id))
    .for('update');
  return rows.map((row) => row.id);
}

export interface PlanChange {
  memberId: number;
  before: PlanColumns;
  after: PlanColumns;
}

export interface Settlement {
  changes: PlanChange[];
  /** Sessions whose cached copies are stale from the commit on (already in the invalidation outbox). */
  tokenHashes: string[];
}

/**
 * Brings each member's plan columns in line with their purchases (members locked by the caller): PREMIUM
 * until the entitling purchase's expiry, else FREE with the subscription info cleared; an admin's permanent
 * PREMIUM stays. When the plan changes, the member's live sessions change with it.
 */
export async function settleMembers(tx: DbOrTx, memberIds: readonly number[], now: Date): Promise<Settlement> {
  const settlement: Settlement = { changes: [], tokenHashes: [] };
  if (memberIds.length === 0) return settlement;
  const members = await tx
    .select({
      id: member.id,
      plan: member.plan,
      planExpiresAt: member.planExpiresAt,
      planProduct: member.planProduct,
      planAutoRenew: member.planAutoRenew,
    })
    .from(member)
    .where(inArray(member.id, [...memberIds]));
  const purchases = await tx
    .select({
      id: iapPurchase.id,
      memberId: iapPurchase.memberId,
      productId: iapPurchase.productId,
      state: iapPurchase.state,
      expiresAt: iapPurchase.expiresAt,
      autoRenew: iapPurchase.autoRenew,
      supersededAt: iapPurchase.supersededAt,
      voidedAt: iapPurchase.voidedAt,
    })
    .from(iapPurchase)
    .where(inArray(iapPurchase.memberId, [...memberIds]));
  for (const row of members) {
    const before = planColumnsOf(row);
    const after = planFromPurchases(
      before,
      purchases.filter((purchase) => purchase.memberId === row.id),
      now,
    );
    if (samePlan(before, after)) continue;
    await tx.update(member).set(after).where(eq(member.id, row.id));
    if (before.plan !== after.plan) settlement.tokenHashes.push(...(await writePlanToSessions(tx, row.id, after.plan)));
    settlement.changes.push({ memberId: row.id, before, after });
  }
  return settlement;
}
