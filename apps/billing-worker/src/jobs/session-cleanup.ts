import { authSession, type Database } from '@nestegg/db';
import { lt } from 'drizzle-orm';
import type { ScheduledJob } from './job.js';

export const SESSION_CLEANUP_QUEUE = 'session-cleanup';

/**
 * A cached session expires in Redis when its backup row does; deleting only rows expired this long ago
 * keeps clock skew between the api, Redis and PostgreSQL from ever leaving a live cached copy without
 * its row (which would make it impossible to revoke).
 */
export const CLEANUP_MARGIN_MS = 60 * 60 * 1000;

/**
 * Deletes session backups whose sliding lifetime ran out over an hour ago, normal and rememberMe alike:
 * each row carries its own expiry. Returns how many were deleted.
 */
export async function deleteExpiredSessions(db: Database, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - CLEANUP_MARGIN_MS);
  const removed = await db
    .delete(authSession)
    .where(lt(authSession.expiresAt, cutoff))
    .returning({ id: authSession.id });
  return removed.length;
}

export const sessionCleanupJob: ScheduledJob = {
  queue: SESSION_CLEANUP_QUEUE,
  cron: (env) => env.SESSION_CLEANUP_CRON,
  run: async ({ db, now }) => ({ deleted: await deleteExpiredSessions(db, now()) }),
};
