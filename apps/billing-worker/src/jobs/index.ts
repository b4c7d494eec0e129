import { appStoreNotificationHistoryJob } from './appstore-notification-history.js';
import { boardImageCleanupJob } from './board-image-cleanup.js';
import { idempotencyCleanupJob } from './idempotency-cleanup.js';
import type { ScheduledJob } from './job.js';
import { membershipExpiryJob } from './membership-expiry.js';
import { recurringPostingJob } from './recurring-posting.js';
import { sessionCleanupJob } from './session-cleanup.js';
import { statementPreviewCleanupJob } from './statement-preview-cleanup.js';
import { storeInboxSweepJob } from './store-notifications.js';
import { storeRetriesJob } from './store-retries.js';
import { storeVoidedPurchasesJob } from './store-voided-purchases.js';
import { syncTombstoneCleanupJob } from './sync-tombstone-cleanup.js';

/** Every scheduled job of the worker. */
export const scheduledJobs: ScheduledJob[] = [
  sessionCleanupJob,
  idempotencyCleanupJob,
  recurringPostingJob,
  syncTombstoneCleanupJob,
  boardImageCleanupJob,
  statementPreviewCleanupJob,
  membershipExpiryJob,
  storeVoidedPurchasesJob,
  storeRetriesJob,
  storeInboxSweepJob,
  appStoreNotificationHistoryJob,
];
