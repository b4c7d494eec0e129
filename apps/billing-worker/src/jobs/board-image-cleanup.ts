import type { Database } from '@nestegg/db';
import { sql } from 'drizzle-orm';
import type { ScheduledJob } from './job.js';

export const BOARD_IMAGE_CLEANUP_QUEUE = 'board-image-cleanup';
/** Images per statement: each row carries up to a few megabytes. */
export const BOARD_IMAGE_CLEANUP_BATCH = 200;

/**
 * Deletes board images that no post or comment has shown since before `cutoff` (`unreferenced_since`,
 * stamped by the database triggers that track references), a batch per statement. Rows are locked with
 * SKIP LOCKED and re-checked when locked: an image a post is referencing at this moment is either skipped
 * or, once that post has committed, no longer stamped. Returns how many were deleted.
 */
export async function deleteUnreferencedBoardImages(
  db: Database,
  cutoff: Date,
  batch = BOARD_IMAGE_CLEANUP_BATCH,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [result] = await db.execute<{ removed: number }>(sql`
      with doomed as (
        select id from board_image
         where unreferenced_since < ${cutoff.toISOString()}
         order by unreferenced_since
         limit ${batch}
           for update skip locked
      ), removed as (
        delete from board_image i using doomed d where i.id = d.id returning i.id
      )
      select count(*)::int as removed from removed`);
    const removed = result?.removed ?? 0;
    deleted += removed;
    if (removed < batch) return deleted;
  }
}

export const boardImageCleanupJob: ScheduledJob = {
  queue: BOARD_IMAGE_CLEANUP_QUEUE,
  cron: (env) => env.BOARD_IMAGE_CLEANUP_CRON,
  run: async ({ db, now }, env) => {
    const cutoff = new Date(now().getTime() - env.BOARD_IMAGE_GRACE_HOURS * 3_600_000);
    return { deleted: await deleteUnreferencedBoardImages(db, cutoff) };
  },
};
