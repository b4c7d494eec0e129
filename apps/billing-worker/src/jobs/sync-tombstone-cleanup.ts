import type { Database } from '@nestegg/db';
import { sql } from 'drizzle-orm';
import type { ScheduledJob } from './job.js';

export const SYNC_TOMBSTONE_CLEANUP_QUEUE = 'sync-tombstone-cleanup';
const BATCH = 10_000;

/**
 * Deletes delta-sync tombstones older than the retention, a batch per statement, and raises each member's
 * `pruned_seq` to the highest number it removed: a client whose cursor is below it missed a deletion and must
 * sync from scratch (decision L3).
 */
export async function pruneSyncTombstones(db: Database, cutoff: Date): Promise<number> {
  let pruned = 0;
  for (;;) {
    const [result] = await db.execute<{ removed: number }>(sql`
      with doomed as (
        select member_id, entity, entity_id, seq from ledger_change
        where deleted and changed_at < ${cutoff.toISOString()}
        order by changed_at limit ${BATCH}
        for update skip locked
      ), removed as (
        delete from ledger_change l using doomed d
        where l.member_id = d.member_id and l.entity = d.entity and l.entity_id = d.entity_id and l.seq = d.seq
        returning l.member_id, l.seq
      ), highest as (
        select member_id, max(seq) as seq from removed group by member_id
      ), raised as (
        update member_change_counter c set pruned_seq = greatest(c.pruned_seq, h.seq)
        from highest h where c.member_id = h.member_id
        returning c.member_id
      )
      select (select count(*)::int from removed) as removed`);
    pruned += result?.removed ?? 0;
    if ((result?.removed ?? 0) < BATCH) return pruned;
  }
}

export const syncTombstoneCleanupJob: ScheduledJob = {
  queue: SYNC_TOMBSTONE_CLEANUP_QUEUE,
  cron: (env) => env.SYNC_TOMBSTONE_CLEANUP_CRON,
  run: async ({ db, now }, env) => {
    const cutoff = new Date(now().getTime() - env.SYNC_TOMBSTONE_RETENTION_DAYS * 86_400_000);
    return { pruned: await pruneSyncTombstones(db, cutoff) };
  },
};
