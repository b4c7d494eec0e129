import {
  type BoardPageQuery,
  type Comment,
  type CommentPage,
  MAX_ID,
  type MyCommentPage,
  SPAM_BLOCK_REASON,
} from '@nestegg/contract';
import { comment, commentVote, type Database, member, post, type Transaction } from '@nestegg/db';
import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../../../lib/cursor.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../../lib/errors.js';
import { DailyCaps, PointReason, type PointsService } from '../../members/points/index.js';
import type { Viewer, Writer } from '../kernel/index.js';
import { assertOffsetAllowed, lockTargetRow, pageOf, recordContentDeletion } from '../kernel/index.js';
import { WRITING_POINTS } from '../posts/index.js';
import { containsSpam } from '../spam/index.js';
import { type CommentRow, commentColumns, type MyCommentRow, toComment, toMyComment } from './comment.view.js';
import { CommentList } from './comment-list.js';

export interface CommentsDeps {
  db: Database;
  /** Reads a replica may serve when the request's route allows it (decision DB20); the primary otherwise. */
  reader: Database;
  points: PointsService;
  /** `PUBLIC_URL`: avatar URLs are absolute. */
  publicUrl: string;
}

const p = sql.placeholder;

/** A comment and whether its post is blocked, locked for the rest of the transaction. */
function lockedComment(tx: Transaction, id: number) {
  const columns = {
    memberId: comment.memberId,
    blocked: comment.blocked,
    blockReason: comment.blockReason,
    postBlocked: post.blocked,
  };
  return lockTargetRow(tx, 'COMMENT', id, columns, 'update');
}

function notYours(): ForbiddenError {
  return new ForbiddenError('FORBIDDEN', 'Only its author or an administrator may change this comment.');
}

/**
 * Comments: the list of a post (see `CommentList`), writing with the spam filter and the writing points,
 * editing and deleting by the author or an admin, and the caller's own comments. A comment on a blocked post
 * does not exist for non-admins (only its author may still delete it); a blocked comment keeps its place
 * with its body hidden and cannot be edited by its author.
 */
export class CommentsService {
  private readonly commentList: CommentList;
  private readonly byId;
  private readonly mine;

  constructor(private readonly deps: CommentsDeps) {
    this.commentList = new CommentList(deps.reader, deps.publicUrl);
    this.byId = deps.db
      .select(commentColumns)
      .from(comment)
      .innerJoin(member, eq(member.id, comment.memberId))
      .leftJoin(commentVote, and(eq(commentVote.commentId, comment.id), eq(commentVote.memberId, p('viewerId'))))
      .where(eq(comment.id, p('id')))
      .prepare('board_comment_by_id');
    this.mine = prepareMyComments(deps.db);
  }

  list(viewer: Viewer, postId: number, query: BoardPageQuery): Promise<CommentPage> {
    return this.commentList.list(viewer, postId, query);
  }

  /**
   * Comments on a post the writer can see (the post is held FOR KEY SHARE: it cannot go before the insert).
   * Spam → stored blocked without points; else +10 points within the daily writing cap.
   */
  async create(writer: Writer, postId: number, body: string): Promise<Comment> {
    const id = await this.deps.db.transaction(async (tx) => {
      const [parent] = await tx
        .select({ blocked: post.blocked })
        .from(post)
        .where(eq(post.id, postId))
        .for('key share');
      if (!parent || (parent.blocked && !writer.isAdmin)) throw new NotFoundError('post');
      const spam = !writer.isAdmin && (await containsSpam(tx, body));
      if (!spam) {
        await this.deps.points.change(tx, {
          memberId: writer.memberId,
          amount: WRITING_POINTS,
          reason: PointReason.COMMENT_WRITTEN,
          dailyCap: DailyCaps.WRITING,
        });
      }
      const [row] = await tx
        .insert(comment)
        .values({
          postId,
          memberId: writer.memberId,
          body,
          blocked: spam,
          blockReason: spam ? SPAM_BLOCK_REASON : null,
        })
        .returning({ id: comment.id });
      return row!.id;
    });
    return this.written(writer, id);
  }

  /** The author or an admin; a blocked comment only by an admin; an edit matching a spam keyword blocks it. */
  async update(writer: Writer, id: number, body: string): Promise<Comment> {
    await this.deps.db.transaction(async (tx) => {
      const stored = await lockedComment(tx, id);
      if (!stored || (stored.postBlocked && !writer.isAdmin)) throw new NotFoundError('comment');
      if (!writer.isAdmin && (stored.memberId !== writer.memberId || stored.blocked)) throw notYours();
      const spam = !writer.isAdmin && (await containsSpam(tx, body));
      await tx
        .update(comment)
        .set({ body, ...(spam ? { blocked: true, blockReason: stored.blockReason ?? SPAM_BLOCK_REASON } : {}) })
        .where(eq(comment.id, id));
    });
    return this.written(writer, id);
  }

  /** Deletes a comment with its votes. Reports are history and stay, closed by a CONTENT_DELETED event. */
  async delete(writer: Writer, id: number): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const stored = await lockedComment(tx, id);
      const isAuthor = stored?.memberId === writer.memberId;
      if (!stored || (stored.postBlocked && !writer.isAdmin && !isAuthor)) throw new NotFoundError('comment');
      if (!isAuthor && !writer.isAdmin) throw notYours();
      await recordContentDeletion(tx, 'COMMENT', [id], writer.memberId);
      await tx.delete(comment).where(eq(comment.id, id));
    });
  }

  /**
   * The caller's comments, newest first, with their post's title and board; comments on blocked posts of
   * others are left out for non-admins. The total is read on pages without a cursor only.
   */
  async myComments(writer: Writer, query: BoardPageQuery): Promise<MyCommentPage> {
    const { page, size, cursor } = query;
    assertOffsetAllowed(page, size, cursor);
    const after = cursor === undefined ? undefined : afterIdOf(cursor);
    const statements = writer.isAdmin ? this.mine.admin : this.mine.member;
    const values = { memberId: writer.memberId, limit: size + 1, offset: (page - 1) * size, afterId: after };
    const [rows, counted] = await Promise.all([
      (after === undefined ? statements.byOffset : statements.afterCursor).execute(values),
      after === undefined ? statements.total.execute(values) : Promise.resolve(undefined),
    ]);
    const { items, hasMore } = pageOf(rows as MyCommentRow[], size);
    const last = items.at(-1);
    return {
      items: items.map((row) => toMyComment(row, this.deps.publicUrl, writer.isAdmin)),
      page: after === undefined ? page : 1,
      size,
      total: counted ? (counted[0]?.total ?? 0) : null,
      nextCursor: hasMore && last ? encodeCursor([last.id]) : null,
    };
  }

  /** What a write answers: the comment as its writer sees it. */
  private async written(writer: Writer, id: number): Promise<Comment> {
    const [row] = await this.byId.execute({ id, viewerId: writer.memberId });
    if (!row) throw new NotFoundError('comment');
    return toComment(row as CommentRow, this.deps.publicUrl, writer.isAdmin);
  }
}

function afterIdOf(cursor: string): number {
  const [afterId] = decodeCursor(cursor, ['number'] as const);
  if (afterId < 1 || afterId > MAX_ID)
    throw new BadRequestError('CURSOR_INVALID', 'The cursor is not one this list gave.');
  return afterId;
}

/**
 * The caller's comments for members (comments on others' blocked posts left out) and for admins: a page by
 * offset, a page after a cursor, and the total; built once. Ids come from the (member_id, id) index.
 */
function prepareMyComments(db: Database) {
  const readable = (admin: boolean): SQL =>
    admin ? sql`` : sql` and (not q.blocked or q.member_id = ${p('memberId')})`;
  const ids = (admin: boolean, after: boolean) => {
    const position = after ? sql` and c.id < ${p('afterId')}::integer` : sql``;
    const window = after ? sql`limit ${p('limit')}` : sql`limit ${p('limit')} offset ${p('offset')}`;
    return sql`select c.id from ${comment} c join ${post} q on q.id = c.post_id
      where c.member_id = ${p('memberId')}${readable(admin)}${position} order by c.id desc ${window}`;
  };
  const page = (admin: boolean, after: boolean, name: string) =>
    db
      .select({ ...commentColumns, postTitle: post.title, postCategory: post.category })
      .from(comment)
      .innerJoin(post, eq(post.id, comment.postId))
      .innerJoin(member, eq(member.id, comment.memberId))
      .leftJoin(commentVote, and(eq(commentVote.commentId, comment.id), eq(commentVote.memberId, p('memberId'))))
      .where(sql`${comment.id} in (${ids(admin, after)})`)
      .orderBy(desc(comment.id))
      .prepare(name);
  const total = (admin: boolean, name: string) =>
    db
      .select({ total: sql<number>`count(*)::integer` })
      .from(sql`${comment} c join ${post} q on q.id = c.post_id`)
      .where(sql`c.member_id = ${p('memberId')}${readable(admin)}`)
      .prepare(name);
  const statements = (admin: boolean) => {
    const who = admin ? 'admin' : 'member';
    return {
      byOffset: page(admin, false, `board_my_comments_page_${who}`),
      afterCursor: page(admin, true, `board_my_comments_after_${who}`),
      total: total(admin, `board_my_comments_total_${who}`),
    };
  };
  return { member: statements(false), admin: statements(true) };
}
