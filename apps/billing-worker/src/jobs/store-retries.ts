import { type Database, iapPurchase, storeCancellation } from '@nestegg/db';
import {
  ENTITLING_STATES,
  type MembershipSync,
  PurchaseNotFoundError,
  type StoreApi,
  StoreUnavailableError,
} from '@nestegg/membership';
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { ScheduledJob } from './job.js';

export const STORE_RETRY_QUEUE = 'store-retries';
const BATCH = 100;
/** The store refunds a purchase left unacknowledged for 3 days; past that, acknowledging is pointless. */
const ACKNOWLEDGE_WINDOW_MS = 3 * 86_400_000;

interface RetryDeps {
  db: Database;
  store: StoreApi;
  sync: MembershipSync;
  logger: Logger;
  now: Date;
}

/** Acknowledges granted purchases the store has not had acknowledged yet (verify's attempt failed). */
export async function acknowledgePending(deps: RetryDeps): Promise<{ acknowledged: number; failed: number }> {
  const pending = await deps.db
    .select({ purchaseToken: iapPurchase.purchaseToken })
    .from(iapPurchase)
    .where(
      and(
        isNull(iapPurchase.acknowledgedAt),
        eq(iapPurchase.store, 'GOOGLE_PLAY'),
        eq(iapPurchase.test, false),
        inArray(iapPurchase.state, [...ENTITLING_STATES]),
        gt(iapPurchase.createdAt, new Date(deps.now.getTime() - ACKNOWLEDGE_WINDOW_MS)),
      ),
    )
    .orderBy(asc(iapPurchase.createdAt))
    .limit(BATCH);
  const result = { acknowledged: 0, failed: 0 };
  for (const { purchaseToken } of pending) {
    try {
      if (await deps.sync.acknowledge(purchaseToken)) result.acknowledged += 1;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError || error instanceof PurchaseNotFoundError)) throw error;
      deps.logger.warn({ err: error }, 'store acknowledgement failed again; next run retries');
      result.failed += 1;
    }
  }
  return result;
}

/** Cancels, in the store, the subscriptions of members who withdrew (queued by the withdrawal). */
export async function cancelWithdrawnSubscriptions(deps: RetryDeps): Promise<{ cancelled: number; failed: number }> {
  const pending = await deps.db
    .select()
    .from(storeCancellation)
    .where(and(isNull(storeCancellation.doneAt), eq(storeCancellation.store, 'GOOGLE_PLAY')))
    .orderBy(asc(storeCancellation.requestedAt))
    .limit(BATCH);
  const result = { cancelled: 0, failed: 0 };
  for (const { store, purchaseToken } of pending) {
    const thisRow = and(eq(storeCancellation.store, store), eq(storeCancellation.purchaseToken, purchaseToken));
    const done = (lastError: string | null) =>
      deps.db
        .update(storeCancellation)
        .set({ doneAt: deps.now, lastError, attempts: sql`${storeCancellation.attempts} + 1` })
        .where(thisRow);
    try {
      await deps.store.cancel(purchaseToken, 'DEVELOPER_REQUESTED_STOP_PAYMENTS');
      await done(null);
      result.cancelled += 1;
    } catch (error) {
      if (error instanceof PurchaseNotFoundError) {
        await done('the store no longer knows the purchase');
        continue;
      }
      if (!(error instanceof StoreUnavailableError)) throw error;
      await deps.db
        .update(storeCancellation)
        .set({ lastError: error.message, attempts: sql`${storeCancellation.attempts} + 1` })
        .where(thisRow);
      result.failed += 1;
    }
  }
  return result;
}

export const storeRetriesJob: ScheduledJob = {
  queue: STORE_RETRY_QUEUE,
  cron: (env) => env.STORE_RETRY_CRON,
  run: async ({ db, logger, now, membership }) => {
    if (!membership?.store) return { skipped: 'the store is not configured' };
    const deps = { db, logger, now: now(), store: membership.store, sync: membership.sync };
    return { ...(await acknowledgePending(deps)), ...(await cancelWithdrawnSubscriptions(deps)) };
  },
};
