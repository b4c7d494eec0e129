import { type Database, idempotencyKey } from '@nestegg/db';
import { lt } from 'drizzle-orm';
import type { ScheduledJob } from './job.js';

export const IDEMPOTENCY_CLEANUP_QUEUE = 'idempotency-cleanup';

/** Keys are promised for at least 24 hours; kept 48 so a key is never forgotten a little early. */
export const IDEMPOTENCY_KEEP_MS = 48 * 60 * 60 * 1000;

export async function deleteOldIdempotencyKeys(db: Database, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_KEEP_MS);
  const removed = await db
    .delete(idempotencyKey)
    .where(lt(idempotencyKey.createdAt, cutoff))
    .returning({ key: idempotencyKey.key });
  return removed.length;
}

export const idempotencyCleanupJob: ScheduledJob = {
  queue: IDEMPOTENCY_CLEANUP_QUEUE,
  cron: (env) => env.IDEMPOTENCY_CLEANUP_CRON,
  run: async ({ db, now }) => ({ deleted: await deleteOldIdempotencyKeys(db, now()) }),
};
