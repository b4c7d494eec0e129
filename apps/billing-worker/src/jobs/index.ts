import { idempotencyCleanupJob } from './idempotency-cleanup.js';
import type { ScheduledJob } from './job.js';
import { sessionCleanupJob } from './session-cleanup.js';

/** Every scheduled job of the worker. */
export const scheduledJobs: ScheduledJob[] = [sessionCleanupJob, idempotencyCleanupJob];
