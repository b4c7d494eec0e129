import type { ReportTargetType } from '@nestegg/contract';
import { comment, post, type Transaction } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { NotFoundError } from '../../lib/errors.js';

/** Who acts on board content: admins also reach blocked content. */
export interface BoardActor {
  memberId: number;
  isAdmin: boolean;
}

/** A post or comment, locked for the rest of the transaction. */
export interface LockedTarget {
  authorId: number;
  /** The target itself is blocked. */
  blocked: boolean;
  /** Blocked itself, or (a comment) on a blocked post: non-admins cannot read it. */
  hidden: boolean;
  reportCount: number;
  /** The post title, or the title of a comment's post. */
  title: string;
  body: string;
}

/** The table of a kind of board target (both have `blocked`, `block_reason` and the counters). */
export const targetTable = (type: ReportTargetType): PgTable => (type === 'POST' ? post : comment);

const whatOf = (type: ReportTargetType) => (type === 'POST' ? 'post' : 'comment');

/**
 * Locks the post or comment (`for no key update`: the lock its counter updates take anyway, so comments
 * can still be added to a post meanwhile), so votes, reports and dismissals of one target run one after
 * the other and its counters stay true. Content the actor cannot read is 404: a missing target, and for
 * non-admins a blocked post, a blocked comment or a comment on a blocked post.
 */
export async function lockReadableTarget(
  tx: Transaction,
  type: ReportTargetType,
  id: number,
  actor: BoardActor,
): Promise<LockedTarget> {
  const target = type === 'POST' ? await lockPost(tx, id) : await lockComment(tx, id);
  if (!target || (target.hidden && !actor.isAdmin)) throw new NotFoundError(whatOf(type));
  return target;
}

async function lockPost(tx: Transaction, id: number): Promise<LockedTarget | undefined> {
  const [row] = await tx
    .select({
      authorId: post.memberId,
      blocked: post.blocked,
      hidden: post.blocked,
      reportCount: post.reportCount,
      title: post.title,
      body: post.body,
    })
    .from(post)
    .where(eq(post.id, id))
    .for('no key update');
  return row;
}

async function lockComment(tx: Transaction, id: number): Promise<LockedTarget | undefined> {
  const [row] = await tx
    .select({
      authorId: comment.memberId,
      blocked: comment.blocked,
      hidden: sql<boolean>`${comment.blocked} or ${post.blocked}`,
      reportCount: comment.reportCount,
      title: post.title,
      body: comment.body,
    })
    .from(comment)
    .innerJoin(post, eq(post.id, comment.postId))
    .where(eq(comment.id, id))
    .for('no key update', { of: comment });
  return row;
}
