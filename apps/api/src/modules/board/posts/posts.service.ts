import {
  type BoardPageQuery,
  type CreatePostRequest,
  MAX_ID,
  type MyPostPage,
  POST_RECOMMENDERS_PREVIEW,
  type PostDetail,
  type PostListQuery,
  type PostPage,
  SPAM_BLOCK_REASON,
  type UpdatePostRequest,
} from '@nestegg/contract';
import { type Database, member, post, postVote, type Transaction } from '@nestegg/db';
import { and, count, desc, eq, sql } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../../../lib/cursor.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../../lib/errors.js';
import { DailyCaps, PointReason, type PointsService } from '../../members/points/index.js';
import type { Viewer, Writer } from '../kernel/index.js';
import { assertOffsetAllowed, lockTargetRow, pageOf, recordPostDeletion } from '../kernel/index.js';
import { containsSpam } from '../spam/index.js';
import { assertBoardTags } from './board-tags.js';
import {
  type PostDetailRow,
  type PostSummaryRow,
  postSummaryColumns,
  recommendersPreview,
  toPostDetail,
  toPostSummary,
} from './post.view.js';
import { PostList } from './post-list.js';

export interface PostsDeps {
  db: Database;
  /** Reads a replica may serve when the request's route allows it (decision DB20); the primary otherwise. */
  reader: Database;
  points: PointsService;
  /** `PUBLIC_URL`: avatar URLs are absolute. */
  publicUrl: string;
}

/** Points for writing a post or a comment (spec, Limits), within the shared daily writing cap. */
export const WRITING_POINTS = 10;

const p = sql.placeholder;

/** The stored post a write checks its rules against, locked for the rest of the transaction. */
function lockedPost(tx: Transaction, id: number) {
  const columns = {
    memberId: post.memberId,
    category: post.category,
    title: post.title,
    body: post.body,
    tags: post.tags,
    blocked: post.blocked,
    blockReason: post.blockReason,
  };
  return lockTargetRow(tx, 'POST', id, columns, 'update');
}

/** A cursor of "my posts": the last id shown. */
function afterIdOf(cursor: string): number {
  const [afterId] = decodeCursor(cursor, ['number'] as const);
  if (afterId < 1 || afterId > MAX_ID)
    throw new BadRequestError('CURSOR_INVALID', 'The cursor is not one this list gave.');
  return afterId;
}

/**
 * Board posts: the list (see `PostList`), a post with its latest up-voters, writing with tags checked
 * against the board's tag groups, the spam filter and the writing points, editing and deleting by the
 * author or an admin, notices, and the caller's own posts. Blocked posts exist for admins only (their
 * author still lists and may delete them).
 */
export class PostsService {
  private readonly postList: PostList;
  private readonly detailById;
  private readonly mine;

  constructor(private readonly deps: PostsDeps) {
    this.postList = new PostList(deps.reader, deps.publicUrl);
    this.detailById = deps.reader
      .select({
        ...postSummaryColumns,
        body: post.body,
        blockReason: post.blockReason,
        recommenders: recommendersPreview(POST_RECOMMENDERS_PREVIEW),
      })
      .from(post)
      .innerJoin(member, eq(member.id, post.memberId))
      .leftJoin(postVote, and(eq(postVote.postId, post.id), eq(postVote.memberId, p('viewerId'))))
      .where(eq(post.id, p('id')))
      .prepare('board_post_detail');
    this.mine = prepareMyPosts(deps.db);
  }

  list(viewer: Viewer, query: PostListQuery): Promise<PostPage> {
    return this.postList.list(viewer, query);
  }

  /** A post; a blocked one is 404 for everyone but admins. */
  async get(viewer: Viewer, id: number): Promise<PostDetail> {
    const row = await this.detail(viewer, id);
    if (!row || (row.blocked && !viewer.isAdmin)) throw new NotFoundError('post');
    return toPostDetail(row, this.deps.publicUrl, viewer.isAdmin);
  }

  /**
   * Writes a post: spam → stored blocked without points (admins are not filtered), else +10 points within the
   * daily writing cap. The points lock the member's row before the post's insert touches the shared board
   * counters, the order withdrawal takes too.
   */
  async create(writer: Writer, body: CreatePostRequest): Promise<PostDetail> {
    await assertBoardTags(this.deps.db, body.category, body.tags);
    const id = await this.deps.db.transaction(async (tx) => {
      const spam = !writer.isAdmin && (await containsSpam(tx, body.title, body.body));
      if (!spam) {
        await this.deps.points.change(tx, {
          memberId: writer.memberId,
          amount: WRITING_POINTS,
          reason: PointReason.POST_WRITTEN,
          dailyCap: DailyCaps.WRITING,
        });
      }
      const [row] = await tx
        .insert(post)
        .values({
          memberId: writer.memberId,
          category: body.category,
          title: body.title,
          body: body.body,
          tags: body.tags,
          notice: writer.isAdmin && body.notice === true,
          blocked: spam,
          blockReason: spam ? SPAM_BLOCK_REASON : null,
        })
        .returning({ id: post.id });
      return row!.id;
    });
    return this.written(writer, id);
  }

  /**
   * Changes the fields sent. The author or an admin only (403 otherwise); a blocked post is 404 for
   * non-admins. Tags are checked against the (new) board when either is sent; an edit matching a spam
   * keyword blocks the post (an existing block keeps its reason).
   */
  async update(writer: Writer, id: number, body: UpdatePostRequest): Promise<PostDetail> {
    await this.deps.db.transaction(async (tx) => {
      const stored = await lockedPost(tx, id);
      if (!stored || (stored.blocked && !writer.isAdmin)) throw new NotFoundError('post');
      if (stored.memberId !== writer.memberId && !writer.isAdmin) throw notYours('post');
      const category = body.category ?? stored.category;
      const tags = body.tags ?? stored.tags;
      if (body.category !== undefined || body.tags !== undefined) await assertBoardTags(tx, category, tags);
      const textChanged = body.title !== undefined || body.body !== undefined;
      const spam =
        !writer.isAdmin &&
        textChanged &&
        (await containsSpam(tx, body.title ?? stored.title, body.body ?? stored.body));
      await tx
        .update(post)
        .set({
          category,
          tags,
          ...(body.title === undefined ? {} : { title: body.title }),
          ...(body.body === undefined ? {} : { body: body.body }),
          ...(writer.isAdmin && body.notice !== undefined ? { notice: body.notice } : {}),
          ...(spam ? { blocked: true, blockReason: stored.blockReason ?? SPAM_BLOCK_REASON } : {}),
        })
        .where(eq(post.id, id));
    });
    return this.written(writer, id);
  }

  /**
   * Deletes a post with its comments and votes (foreign key cascades). Reports are history and stay,
   * closed by a CONTENT_DELETED event. Its author may delete it even when blocked; for other non-admins a
   * blocked post does not exist.
   */
  async delete(writer: Writer, id: number): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const stored = await lockedPost(tx, id);
      const isAuthor = stored?.memberId === writer.memberId;
      if (!stored || (stored.blocked && !writer.isAdmin && !isAuthor)) throw new NotFoundError('post');
      if (!isAuthor && !writer.isAdmin) throw notYours('post');
      await recordPostDeletion(tx, id, writer.memberId);
      await tx.delete(post).where(eq(post.id, id));
    });
  }

  /** Sets or clears the notice flag (admin routes); the post's `updatedAt` stays: no content changed. */
  async setNotice(id: number, notice: boolean): Promise<void> {
    const updated = await this.deps.db
      .update(post)
      .set({ notice, updatedAt: sql`${post.updatedAt}` })
      .where(eq(post.id, id))
      .returning({ id: post.id });
    if (updated.length === 0) throw new NotFoundError('post');
  }

  /**
   * The caller's posts, newest first, blocked ones included. The total (an index-only count of the member's
   * own posts) is read on pages without a cursor only.
   */
  async myPosts(writer: Writer, query: BoardPageQuery): Promise<MyPostPage> {
    const { page, size, cursor } = query;
    assertOffsetAllowed(page, size, cursor);
    const afterId = cursor === undefined ? undefined : afterIdOf(cursor);
    const values = { memberId: writer.memberId, limit: size + 1, offset: (page - 1) * size, afterId };
    const [rows, counted] = await Promise.all([
      (afterId === undefined ? this.mine.byOffset : this.mine.afterCursor).execute(values),
      afterId === undefined ? this.mine.total.execute(values) : Promise.resolve(undefined),
    ]);
    const { items, hasMore } = pageOf(rows as PostSummaryRow[], size);
    const last = items.at(-1);
    return {
      items: items.map((row) => toPostSummary(row, this.deps.publicUrl)),
      page: afterId === undefined ? page : 1,
      size,
      total: counted ? (counted[0]?.total ?? 0) : null,
      nextCursor: hasMore && last ? encodeCursor([last.id]) : null,
    };
  }

  private async detail(viewer: Viewer, id: number): Promise<PostDetailRow | undefined> {
    const [row] = await this.detailById.execute({ id, viewerId: viewer.memberId });
    return row as PostDetailRow | undefined;
  }

  /** What a write answers: the post as its writer sees it (a post the filter just blocked included). */
  private async written(writer: Writer, id: number): Promise<PostDetail> {
    const row = await this.detail(writer, id);
    if (!row) throw new NotFoundError('post');
    return toPostDetail(row, this.deps.publicUrl, writer.isAdmin);
  }
}

function notYours(what: string): ForbiddenError {
  return new ForbiddenError('FORBIDDEN', `Only its author or an administrator may change this ${what}.`);
}

/**
 * The caller's posts: a page by offset, a page after a cursor, and the total; built once. The page's ids
 * come from the (member_id, id) index alone; authors and votes are joined for those rows only.
 */
function prepareMyPosts(db: Database) {
  const page = (after: boolean, name: string) => {
    const position = after ? sql` and m.id < ${p('afterId')}::integer` : sql``;
    const window = after ? sql`limit ${p('limit')}` : sql`limit ${p('limit')} offset ${p('offset')}`;
    const ids = sql`select m.id from ${post} m where m.member_id = ${p('memberId')}${position} order by m.id desc ${window}`;
    return db
      .select(postSummaryColumns)
      .from(post)
      .innerJoin(member, eq(member.id, post.memberId))
      .leftJoin(postVote, and(eq(postVote.postId, post.id), eq(postVote.memberId, p('memberId'))))
      .where(sql`${post.id} in (${ids})`)
      .orderBy(desc(post.id))
      .prepare(name);
  };
  return {
    byOffset: page(false, 'board_my_posts_page'),
    afterCursor: page(true, 'board_my_posts_after'),
    total: db
      .select({ total: count() })
      .from(post)
      .where(eq(post.memberId, p('memberId')))
      .prepare('board_my_posts_total'),
  };
}
