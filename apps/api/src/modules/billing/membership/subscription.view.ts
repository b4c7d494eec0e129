import type { Subscription, SubscriptionState } from '@nestegg/contract';
import type { Database, MemberPlan, PurchaseState } from '@nestegg/db';
import { ENTITLING_STATES } from '@nestegg/membership';
import { sql } from 'drizzle-orm';

interface SubscriptionRow extends Record<string, unknown> {
  plan: MemberPlan;
  plan_expires_at: string | Date | null;
  plan_product: string | null;
  plan_auto_renew: boolean;
  purchase_state: PurchaseState | null;
  purchase_grants: boolean | null;
}

const ENTITLING = sql.raw(ENTITLING_STATES.map((state) => `'${state}'`).join(', '));

/**
 * The member's plan columns and their current purchase in one statement: the purchase that grants
 * PREMIUM the longest, else the newest one (superseded purchases are history, not "current").
 */
export async function readSubscription(db: Database, memberId: number, now: Date): Promise<Subscription | null> {
  const rows = await db.execute<SubscriptionRow>(sql`
    select m.plan, m.plan_expires_at, m.plan_product, m.plan_auto_renew,
           p.state as purchase_state, p.grants as purchase_grants
      from member m
      left join lateral (
        select state,
               (state in (${ENTITLING}) and voided_at is null and expires_at > ${now.toISOString()}::timestamptz) as grants
          from iap_purchase
         where member_id = m.id and superseded_at is null
         order by grants desc, expires_at desc nulls last, id desc
         limit 1
      ) p on true
     where m.id = ${memberId}`);
  const row = rows[0];
  return row ? toSubscription(row) : null;
}

function stateOf(row: SubscriptionRow): SubscriptionState {
  if (row.purchase_state === null) return 'NONE';
  // An entitling state past its expiry, not yet re-read from the store: it has lapsed.
  if (ENTITLING_STATES.includes(row.purchase_state) && !row.purchase_grants) return 'EXPIRED';
  return row.purchase_state;
}

function toSubscription(row: SubscriptionRow): Subscription {
  const expiresAt = row.plan_expires_at === null ? null : new Date(row.plan_expires_at).toISOString();
  const state = stateOf(row);
  const renews = row.plan === 'PREMIUM' && row.plan_auto_renew && (state === 'ACTIVE' || state === 'IN_GRACE');
  return {
    plan: row.plan,
    planExpiresAt: expiresAt,
    nextBillingDate: renews ? expiresAt : null,
    autoRenew: row.plan_auto_renew,
    productId: row.plan_product,
    state,
  };
}
