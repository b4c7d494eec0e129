import type { ReportTargetType } from '@nestegg/contract';
import { comment, moderationEvent, report, type Transaction } from '@nestegg/db';
import { and, eq, inArray, type SQLWrapper, sql } from 'drizzle-orm';

/**
 * Records that reported posts or comments are being deleted; call it in the deleting transaction, before
 * the rows go. Each target with reports gets a CONTENT_DELETED event by `actorId` (the author or an
 * admin) that closes its open reports, which keep the content as reported. `ids` may be a subquery.
 */
export async function recordContentDeletion(
  tx: Transaction,
  type: ReportTargetType,
  ids: number[] | SQLWrapper,
  actorId: number | null,
): Promise<void> {
  if (Array.isArray(ids) && ids.length === 0) return;
  await tx.execute(sql`
    with reported as (
      select distinct target_type, target_id from ${report}
       where ${and(eq(report.targetType, type), inArray(report.targetId, ids))}
    ), events as (
      insert into ${moderationEvent} (target_type, target_id, action, actor_id)
      select target_type, target_id, 'CONTENT_DELETED', ${actorId}::integer from reported
      returning id, target_type, target_id
    )
    update ${report} r set resolution_id = events.id from events
     where r.target_type = events.target_type and r.target_id = events.target_id and r.resolution_id is null`);
}

/** A post's deletion: the post and its comments (which the foreign key deletes with it). */
export async function recordPostDeletion(tx: Transaction, postId: number, actorId: number | null): Promise<void> {
  await recordContentDeletion(tx, 'POST', [postId], actorId);
  await recordContentDeletion(
    tx,
    'COMMENT',
    tx.select({ id: comment.id }).from(comment).where(eq(comment.postId, postId)),
    actorId,
  );
}
