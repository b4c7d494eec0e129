import {
  account,
  accountEntry,
  boardImage,
  budget,
  budgetIncome,
  budgetOnetime,
  category,
  comment,
  commentVote,
  type Database,
  type DbOrTx,
  iapPurchase,
  investmentHolding,
  investmentTrade,
  member,
  moderationEvent,
  pointHistory,
  post,
  postVote,
  quickEntry,
  recurring,
  report,
  type Transaction,
  tag,
} from '@nestegg/db';
import { queueStoreCancellations } from '@nestegg/membership';
import { and, eq, inArray, isNotNull, or, sql } from 'drizzle-orm';
import { NotFoundError } from '../../../lib/errors.js';
import { assertAnotherActiveAdminRemains } from './last-admin.js';
import type { SessionStore } from './session.store.js';

/**
 * Deletes a member and everything of theirs, in the spec's order (board data, ledger data, points,
 * purchase records, sessions, the member), in one transaction; then drops their cached sessions. A store
 * subscription that could still renew is queued for cancellation in the store first (the worker does it).
 * Used by withdrawal and by the admin's member delete; the last active administrator cannot go.
 */
export class AccountDeletion {
  constructor(private readonly deps: { db: Database; sessions: SessionStore }) {}

  async deleteMemberCompletely(memberId: number): Promise<void> {
    const tokenHashes = await this.deps.db.transaction(async (tx) => {
      await assertAnotherActiveAdminRemains(tx, memberId);
      const [found] = await tx.select({ id: member.id }).from(member).where(eq(member.id, memberId)).for('update');
      if (!found) throw new NotFoundError('member');
      await deleteBoardData(tx, memberId);
      await deleteLedgerData(tx, memberId);
      await tx.delete(pointHistory).where(eq(pointHistory.memberId, memberId));
      // Live store subscriptions are cancelled in the store by the worker: the member will not be billed again.
      await queueStoreCancellations(tx, memberId);
      await tx.delete(iapPurchase).where(eq(iapPurchase.memberId, memberId));
      const revoked = await this.deps.sessions.destroyAllOf(memberId, { tx });
      await tx.delete(member).where(eq(member.id, memberId));
      return revoked;
    });
    await this.deps.sessions.forgetCached(tokenHashes);
  }
}

async function deleteBoardData(tx: Transaction, memberId: number): Promise<void> {
  const ownPosts = tx.select({ id: post.id }).from(post).where(eq(post.memberId, memberId));
  const commentsToGo = tx
    .select({ id: comment.id })
    .from(comment)
    .where(or(eq(comment.memberId, memberId), inArray(comment.postId, ownPosts)));

  // Reports and moderation events point at their target without a foreign key: those on content that is
  // going away go with it (reports hold copies of that content); reports first, they reference the events.
  await tx
    .delete(report)
    .where(
      or(
        and(eq(report.targetType, 'POST'), inArray(report.targetId, ownPosts)),
        and(eq(report.targetType, 'COMMENT'), inArray(report.targetId, commentsToGo)),
      ),
    );
  await tx
    .delete(moderationEvent)
    .where(
      or(
        and(eq(moderationEvent.targetType, 'POST'), inArray(moderationEvent.targetId, ownPosts)),
        and(eq(moderationEvent.targetType, 'COMMENT'), inArray(moderationEvent.targetId, commentsToGo)),
      ),
    );
  await withdrawVotesAndReports(tx, memberId);
  await tx.delete(comment).where(inArray(comment.id, commentsToGo));
  await tx.delete(post).where(eq(post.memberId, memberId));
  await tx.delete(boardImage).where(eq(boardImage.memberId, memberId));
}

const votedTargets = [
  { votes: postVote, voter: postVote.memberId, targetColumn: 'post_id', target: post, targetId: post.id },
  {
    votes: commentVote,
    voter: commentVote.memberId,
    targetColumn: 'comment_id',
    target: comment,
    targetId: comment.id,
  },
] as const;

/**
 * The member's votes and reports on other members' content go, and those counters drop with them
 * (`report_count` counts open reports only). A block their reports caused stays until an admin reviews it.
 */
async function withdrawVotesAndReports(tx: Transaction, memberId: number): Promise<void> {
  for (const { votes, voter, targetColumn, target, targetId } of votedTargets) {
    await tx.execute(sql`
      with removed as (
        delete from ${votes} where ${voter} = ${memberId} returning ${sql.identifier(targetColumn)} as target_id, direction
      ),
      tally as (
        select target_id, count(*) filter (where direction = 'UP') as ups, count(*) filter (where direction = 'DOWN') as downs
        from removed group by target_id
      )
      update ${target} set up_count = greatest(up_count - tally.ups, 0), down_count = greatest(down_count - tally.downs, 0)
      from tally where ${targetId} = tally.target_id`);
  }
  await tx.execute(sql`
    with removed as (
      delete from ${report} where ${report.memberId} = ${memberId} and ${report.resolutionId} is null
      returning target_type, target_id
    ),
    on_posts as (
      update ${post} set report_count = greatest(report_count - 1, 0)
      from removed where removed.target_type = 'POST' and ${post.id} = removed.target_id
    )
    update ${comment} set report_count = greatest(report_count - 1, 0)
    from removed where removed.target_type = 'COMMENT' and ${comment.id} = removed.target_id`);
  await tx.delete(report).where(eq(report.memberId, memberId));
}

async function deleteLedgerData(tx: DbOrTx, memberId: number): Promise<void> {
  await tx.delete(investmentTrade).where(eq(investmentTrade.memberId, memberId));
  await tx.delete(investmentHolding).where(eq(investmentHolding.memberId, memberId));
  await tx.delete(accountEntry).where(eq(accountEntry.memberId, memberId));
  await tx.delete(recurring).where(eq(recurring.memberId, memberId));
  await tx.delete(quickEntry).where(eq(quickEntry.memberId, memberId));
  await tx.delete(budget).where(eq(budget.memberId, memberId));
  await tx.delete(budgetIncome).where(eq(budgetIncome.memberId, memberId));
  await tx.delete(budgetOnetime).where(eq(budgetOnetime.memberId, memberId));
  await tx.delete(tag).where(eq(tag.memberId, memberId));
  // Sub-categories first: a parent with children cannot be deleted.
  await tx.delete(category).where(and(eq(category.memberId, memberId), isNotNull(category.parentId)));
  await tx.delete(category).where(eq(category.memberId, memberId));
  await tx.delete(account).where(eq(account.memberId, memberId));
}
