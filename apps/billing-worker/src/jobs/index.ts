import { idempotencyCleanupJob } from './idempotency-cleanup.js';
import type { ScheduledJob } from './job.js';
import { recurringPostingJob } from './recurring-posting.js';
import { sessionCleanupJob } from './session-cleanup.js';
import { syncTombstoneCleanupJob } from './sync-tombstone-cleanup.js';

/** Every scheduled job of the worker. */
export const scheduledJobs: ScheduledJob[] = [
  sessionCleanupJob,
  idempotencyCleanupJob,
  recurringPostingJob,
  syncTombstoneCleanupJob,
];
