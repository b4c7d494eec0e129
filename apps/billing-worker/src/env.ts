import {
  cronExpression,
  databaseEnvShape,
  databaseTimeoutsEnvShape,
  listenHost,
  loadEnvironment,
  loadEnvironmentOrExit,
  port,
  positiveInt,
  processEnvShape,
  requireDirectUrlBehindPooler,
  requireWholeGroups,
  timeZone,
} from '@nestegg/config';
import { appStoreGroup, billingEnvShape, refuseTestModeInProduction, storeGroup } from '@nestegg/membership';
import { z } from 'zod';

const shape = {
  ...processEnvShape,
  ...databaseEnvShape(4),
  /** Jobs may wait for a connection and run long statements; connecting is bounded (decision FO1). */
  ...databaseTimeoutsEnvShape({ connectMs: 10_000, acquireMs: 0, statementMs: 0 }),
  /** Connections of the job engine's own pool (pg-boss), on top of DATABASE_POOL_SIZE. */
  JOBS_POOL_SIZE: positiveInt(4, 50),
  /** Where the health and metrics endpoints listen: loopback by default; the image and compose set 0.0.0.0 (decision I7). */
  WORKER_HOST: listenHost,
  WORKER_HEALTH_PORT: port(3001),
  JOBS_TIMEZONE: timeZone(),
  /** The ledger's calendar, as in the api: the day recurring transactions fall due. */
  APP_TIMEZONE: timeZone(),
  SESSION_CLEANUP_CRON: cronExpression('17 3 * * *'),
  IDEMPOTENCY_CLEANUP_CRON: cronExpression('37 3 * * *'),
  RECURRING_POSTING_CRON: cronExpression('7 0 * * *'),
  SYNC_TOMBSTONE_CLEANUP_CRON: cronExpression('47 3 * * *'),
  /** Days a delta-sync tombstone is kept: a device offline longer syncs from scratch. */
  SYNC_TOMBSTONE_RETENTION_DAYS: positiveInt(90, 3650),
  BOARD_IMAGE_CLEANUP_CRON: cronExpression('27 * * * *'),
  /**
   * Hours a board image no post or comment shows is kept (time to write the post it was uploaded for).
   * At least 24: the api's upload quota counts a member's images of the last 24 hours.
   */
  BOARD_IMAGE_GRACE_HOURS: z.coerce.number().int().min(24).max(8760).default(24),
  STATEMENT_PREVIEW_CLEANUP_CRON: cronExpression('57 3 * * *'),
  /** Hours a statement-import preview nobody committed is kept (its file and rows), decision SI1. */
  STATEMENT_PREVIEW_KEEP_HOURS: positiveInt(168, 8760),

  /** Billing: products, test mode and the store's developer API (shared with the api, see @nestegg/membership). */
  ...billingEnvShape,
  /** Hourly: expired memberships without auto-renew drop to FREE; with auto-renew the store is asked first. */
  MEMBERSHIP_EXPIRY_CRON: cronExpression('13 * * * *'),
  /** Daily safety net for missed notifications: the store's voided purchases (refunds, chargebacks) are revoked. */
  STORE_VOIDED_POLL_CRON: cronExpression('23 4 * * *'),
  /** How far back the voided purchases are read (the store keeps 30 days). */
  STORE_VOIDED_LOOKBACK_DAYS: positiveInt(30, 30),
  /** Retries of store calls that failed: acknowledgements, cancellations after a withdrawal. */
  STORE_RETRY_CRON: cronExpression('*/10 * * * *'),
  /** Hands stored notifications to the job engine if a wake-up was missed (new ones are dispatched at once). */
  STORE_INBOX_SWEEP_CRON: cronExpression('* * * * *'),
  /** Attempts of one notification before it is kept as FAILED; retries back off exponentially. */
  STORE_NOTIFICATION_RETRY_LIMIT: positiveInt(12, 100),
  STORE_NOTIFICATION_RETRY_DELAY_SECONDS: positiveInt(30, 3600),
  STORE_NOTIFICATION_RETRY_DELAY_MAX_SECONDS: positiveInt(6 * 3600, 7 * 86_400),
  /** Daily safety net for missed App Store notifications: Get Notification History, stored in the inbox (decision BL28). */
  APPSTORE_HISTORY_CRON: cronExpression('33 4 * * *'),
  /** How far back the notification history is read (Apple keeps 180 days). */
  APPSTORE_HISTORY_LOOKBACK_DAYS: positiveInt(7, 180),
};

export const envSchema = z
  .object(shape)
  .superRefine(requireWholeGroups([storeGroup, appStoreGroup]))
  .superRefine(refuseTestModeInProduction)
  .superRefine(requireDirectUrlBehindPooler);
export type WorkerEnv = z.output<typeof envSchema>;

const keys = Object.keys(shape);

/** Parses the environment once; throws an `InvalidEnvironmentError` naming every bad variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env): WorkerEnv {
  return loadEnvironment(envSchema, keys, source);
}

/** For the entry point: prints every bad variable and exits. */
export function loadEnvOrExit(): WorkerEnv {
  return loadEnvironmentOrExit('nestegg-billing-worker', envSchema, keys);
}
