import type { Database } from '@nestegg/db';
import { sql } from 'drizzle-orm';
import type { ScheduledJob } from './job.js';

export const STATEMENT_PREVIEW_CLEANUP_QUEUE = 'statement-preview-cleanup';
/** Previews per statement: each holds its file (up to 10 MB) and up to 50,000 rows. */
export const STATEMENT_PREVIEW_CLEANUP_BATCH = 20;

/**
 * Deletes statement-import previews (never committed) last changed before `cutoff`, with their rows and their
 * stored file (decision SI1), a batch per statement; a preview being adjusted or committed at this moment is
 * locked and skipped. Committed and undone imports stay: they are the member's history. Returns the count.
 */
export async function deleteStalePreviews(
  db: Database,
  cutoff: Date,
  batch = STATEMENT_PREVIEW_CLEANUP_BATCH,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [result] = await db.execute<{ removed: number }>(sql`
      with doomed as (
        select member_id, id from statement_import
         where status = 'PREVIEW' and updated_at < ${cutoff.toISOString()}
         order by updated_at
         limit ${batch}
           for update skip locked
      ), removed as (
        delete from statement_import i using doomed d
         where i.member_id = d.member_id and i.id = d.id returning i.id
      )
      select count(*)::int as removed from removed`);
    const removed = result?.removed ?? 0;
    deleted += removed;
    if (removed < batch) return deleted;
  }
}

export const statementPreviewCleanupJob: ScheduledJob = {
  queue: STATEMENT_PREVIEW_CLEANUP_QUEUE,
  cron: (env) => env.STATEMENT_PREVIEW_CLEANUP_CRON,
  run: async ({ db, now }, env) => {
    const cutoff = new Date(now().getTime() - env.STATEMENT_PREVIEW_KEEP_HOURS * 3_600_000);
    return { deleted: await deleteStalePreviews(db, cutoff) };
  },
};
