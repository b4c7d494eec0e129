import type { ReportTargetType } from '@nestegg/contract';
import { comment, post, type Transaction } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import type { LockStrength, PgTable, SelectedFields } from 'drizzle-orm/pg-core';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';
import { NotFoundError } from '../../../lib/errors.js';
import type { Writer } from './viewer.js';

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
  actor: Writer,
): Promise<LockedTarget> {
  const target = type === 'POST' ? await lockPost(tx, id) : await lockComment(tx, id);
  if (!target || (target.hidden && !actor.isAdmin)) throw new NotFoundError(whatOf(type));
  return target;
}

function lockPost(tx: Transaction, id: number): Promise<LockedTarget | undefined> {
  const columns = {
    authorId: post.memberId,
    blocked: post.blocked,
    hidden: post.blocked,
    reportCount: post.reportCount,
    title: post.title,
    body: post.body,
  };
  return lockTargetRow(tx, 'POST', id, columns, 'no key update');
}

function lockComment(tx: Transaction, id: number): Promise<LockedTarget | undefined> {
  const columns = {
    authorId: comment.memberId,
    blocked: comment.blocked,
    hidden: sql<boolean>`${comment.blocked} or ${post.blocked}`,
    reportCount: comment.reportCount,
    title: post.title,
    body: comment.body,
  };
  return lockTargetRow(tx, 'COMMENT', id, columns, 'no key update');
}

/**
 * The `columns` of a post, or of a comment (which may also name its post's, joined), the target's row alone
 * locked with `strength` for the rest of the transaction; undefined when it is missing.
 */
export async function lockTargetRow<Columns extends SelectedFields>(
  tx: Transaction,
  type: ReportTargetType,
  id: number,
  columns: Columns,
  strength: LockStrength,
): Promise<SelectResultFields<Columns> | undefined> {
  const select = tx.select(columns as SelectedFields);
  const [row] =
    type === 'POST'
      ? await select.from(post).where(eq(post.id, id)).for(strength)
      : await select
          .from(comment)
          .innerJoin(post, eq(post.id, comment.postId))
          .where(eq(comment.id, id))
          .for(strength, { of: comment });
  return row as SelectResultFields<Columns> | undefined;
}
