import { type Database, iapPurchase, member } from '@nestegg/db';
import { type AppStoreSync, type MembershipSync, StoreUnavailableError } from '@nestegg/membership';
import { and, asc, desc, eq, gt, isNotNull, isNull, lte } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { ScheduledJob } from './job.js';

export const MEMBERSHIP_EXPIRY_QUEUE = 'membership-expiry';
const BATCH = 200;

export interface ExpirySummary {
  /** Auto-renew off, expiry passed: dropped to FREE without asking the store. */
  downgraded: number;
  /** Auto-renew on: the store was asked and its state applied (renewed, or dropped). */
  reverified: number;
  /** Test-mode purchases renewed (test mode on) or expired (off). */
  testPurchases: number;
  /** The store could not be asked: left as they are until the next run. */
  deferred: number;
}

interface ExpiryDeps {
  db: Database;
  sync: MembershipSync;
  logger: Logger;
  now: Date;
  storeConfigured: boolean;
  /** The App Store's side: its purchases are re-read there (decision BL28). */
  appStore?: AppStoreSync;
}

/** The purchase behind an auto-renewing membership: its latest-expiring live purchase. */
async function backingPurchase(db: Database, memberId: number) {
  const [row] = await db
    .select({ purchaseToken: iapPurchase.purchaseToken, test: iapPurchase.test, store: iapPurchase.store })
    .from(iapPurchase)
    .where(and(eq(iapPurchase.memberId, memberId), isNull(iapPurchase.supersededAt), isNull(iapPurchase.voidedAt)))
    .orderBy(desc(iapPurchase.expiresAt), desc(iapPurchase.id))
    .limit(1);
  return row;
}

/** Auto-renew on: not downgraded blindly. The store says whether it renewed (new expiry) or lapsed. */
async function reverify(deps: ExpiryDeps, memberId: number, summary: ExpirySummary): Promise<void> {
  const purchase = await backingPurchase(deps.db, memberId);
  if (!purchase) {
    await deps.sync.settleOnly(memberId);
    summary.downgraded += 1;
  } else if (purchase.test) {
    await deps.sync.renewTestPurchase(purchase.purchaseToken, purchase.store);
    summary.testPurchases += 1;
  } else if (purchase.store === 'APP_STORE' ? !deps.appStore?.configured : !deps.storeConfigured) {
    summary.deferred += 1;
  } else {
    try {
      if (purchase.store === 'APP_STORE') await deps.appStore!.refresh(purchase.purchaseToken);
      else await deps.sync.refresh(purchase.purchaseToken);
      summary.reverified += 1;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      deps.logger.warn({ err: error, memberId }, 'expired auto-renewing membership not re-verified; next run retries');
      summary.deferred += 1;
    }
  }
}

/**
 * The hourly expiry (spec table): PREMIUM past its expiry with auto-renew off drops to FREE with the
 * subscription info cleared and the sessions updated; with auto-renew on the store is asked and its state
 * applied. Members are walked in id order, so one the store could not answer for is not retried in a loop.
 */
export async function expireMemberships(deps: ExpiryDeps): Promise<ExpirySummary> {
  const summary: ExpirySummary = { downgraded: 0, reverified: 0, testPurchases: 0, deferred: 0 };
  for (let afterId = 0; ; ) {
    const due = await deps.db
      .select({ id: member.id, autoRenew: member.planAutoRenew })
      .from(member)
      .where(
        and(
          eq(member.plan, 'PREMIUM'),
          isNotNull(member.planExpiresAt),
          lte(member.planExpiresAt, deps.now),
          gt(member.id, afterId),
        ),
      )
      .orderBy(asc(member.id))
      .limit(BATCH);
    if (due.length === 0) return summary;
    const lapsed = due.filter((row) => !row.autoRenew).map((row) => row.id);
    if (lapsed.length > 0) {
      const { settlement } = await deps.sync.settleOnly(...lapsed);
      summary.downgraded += settlement.changes.filter((change) => change.after.plan === 'FREE').length;
    }
    for (const row of due.filter((candidate) => candidate.autoRenew)) await reverify(deps, row.id, summary);
    afterId = due.at(-1)!.id;
  }
}

export const membershipExpiryJob: ScheduledJob = {
  queue: MEMBERSHIP_EXPIRY_QUEUE,
  cron: (env) => env.MEMBERSHIP_EXPIRY_CRON,
  run: async ({ db, logger, now, membership }) => {
    if (!membership) return { skipped: 'membership is not wired' };
    return {
      ...(await expireMemberships({
        db,
        logger,
        now: now(),
        sync: membership.sync,
        storeConfigured: membership.store !== null,
        appStore: membership.appStore,
      })),
    };
  },
};
