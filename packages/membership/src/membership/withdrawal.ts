import type { DbOrTx } from '@nestegg/db';
import { sql } from 'drizzle-orm';

/**
 * Withdrawal with a live store subscription: the store would go on charging a member who no longer
 * exists, so every Google Play subscription of theirs that can still renew (active, in grace, on hold, paused,
 * pending; not test purchases) is queued for cancellation in the store, in the withdrawal's transaction.
 * The App Store has no call to cancel a subscription (an App Store subscriber cancels in the App Store, BL27), so
 * their App Store subscriptions are recorded as done at once: the row only says that the later notifications
 * of that subscription belong to a withdrawn member (decision BL30).
 * The purchase rows themselves are deleted with the member (spec rule 5); the worker cancels in the store
 * and retries until the store confirms. Returns how many Google Play cancellations were queued.
 */
export async function queueStoreCancellations(tx: DbOrTx, memberId: number): Promise<number> {
  const queued = await tx.execute(sql`
    insert into store_cancellation (store, purchase_token, product_id)
    select store, purchase_token, product_id from iap_purchase
     where member_id = ${memberId} and store = 'GOOGLE_PLAY' and not test and superseded_at is null and voided_at is null
       and state in ('ACTIVE', 'IN_GRACE', 'ON_HOLD', 'PAUSED', 'PENDING')
    on conflict (store, purchase_token) do nothing
    returning purchase_token`);
  await tx.execute(sql`
    insert into store_cancellation (store, purchase_token, product_id, done_at)
    select store, purchase_token, product_id, now() from iap_purchase
     where member_id = ${memberId} and store = 'APP_STORE' and not test
    on conflict (store, purchase_token) do nothing`);
  return queued.length;
}
