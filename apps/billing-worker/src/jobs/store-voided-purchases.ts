import type { MembershipSync, RevokeOutcome, StoreApi } from '@nestegg/membership';
import type { ScheduledJob } from './job.js';

export const STORE_VOIDED_QUEUE = 'store-voided-purchases';
const DAY_MS = 86_400_000;

/**
 * The daily safety net for missed voided-purchase notifications: every purchase the store voided in the
 * look-back window (refunds, chargebacks) is revoked here too. Revoking is idempotent; tokens we do not
 * hold (one-time products, other apps' purchases, withdrawn members) are counted and skipped.
 */
export async function revokeVoidedPurchases(
  store: StoreApi,
  sync: MembershipSync,
  window: { now: Date; lookbackDays: number },
): Promise<Record<RevokeOutcome | 'listed', number>> {
  const voided = await store.listVoidedPurchases({
    start: new Date(window.now.getTime() - window.lookbackDays * DAY_MS),
    end: window.now,
  });
  const summary = { listed: voided.length, REVOKED: 0, ALREADY_REVOKED: 0, UNMATCHED: 0, MEMBER_WITHDRAWN: 0 };
  for (const entry of voided) {
    const voidedAt = entry.voidedTimeMillis ? new Date(Number(entry.voidedTimeMillis)) : window.now;
    summary[await sync.revoke(entry.purchaseToken, voidedAt)] += 1;
  }
  return summary;
}

export const storeVoidedPurchasesJob: ScheduledJob = {
  queue: STORE_VOIDED_QUEUE,
  cron: (env) => env.STORE_VOIDED_POLL_CRON,
  run: async ({ now, membership }, env) => {
    if (!membership?.store) return { skipped: 'the store is not configured' };
    return revokeVoidedPurchases(membership.store, membership.sync, {
      now: now(),
      lookbackDays: env.STORE_VOIDED_LOOKBACK_DAYS,
    });
  },
};
