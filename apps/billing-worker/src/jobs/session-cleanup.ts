import { authSession, type Database } from '@nestegg/db';
import { lt } from 'drizzle-orm';
import type { ScheduledJob } from './job.js';

export const SESSION_CLEANUP_QUEUE = 'session-cleanup';

/**
 * Deletes session backups whose sliding lifetime has run out, normal and rememberMe alike: each row
 * carries its own expiry. Returns how many were deleted.
 */
export async function deleteExpiredSessions(db: Database, now = new Date()): Promise<number> {
  const removed = await db.delete(authSession).where(lt(authSession.expiresAt, now)).returning({ id: authSession.id });
  return removed.length;
}

export const sessionCleanupJob: ScheduledJob = {
  queue: SESSION_CLEANUP_QUEUE,
  cron: (env) => env.SESSION_CLEANUP_CRON,
  run: async ({ db, now }) => ({ deleted: await deleteExpiredSessions(db, now()) }),
};
