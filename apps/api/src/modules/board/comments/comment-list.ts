import { type BoardPageQuery, type CommentPage, MAX_ID } from '@nestegg/contract';
import { comment, commentVote, type Database, member, post } from '@nestegg/db';
import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../../../lib/cursor.js';
import { BadRequestError, NotFoundError } from '../../../lib/errors.js';
import type { Viewer } from '../kernel/index.js';
import { assertOffsetAllowed, isHot, pageOf } from '../kernel/index.js';
import { type CommentRow, commentColumns, toComment } from './comment.view.js';

const p = sql.placeholder;

/** Hot comments come first (rank 0), then the others (rank 1), each oldest first. */
type Rank = 0 | 1;

/** Where a page starts: by offset, or after a hot comment, or after another comment. */
type Shape = 'offset' | 'afterHot' | 'afterRest';

const hotOf = (alias: string) => sql`${sql.raw(`${alias}.post_id`)} = ${p('postId')} and ${isHot(alias)}`;
const restOf = (alias: string) => sql`${sql.raw(`${alias}.post_id`)} = ${p('postId')} and not ${isHot(alias)}`;
const afterId = (alias: string) => sql` and ${sql.raw(`${alias}.id`)} > ${p('afterId')}::integer`;

/**
 * The page's ids, at most `limit` of each rank (the outer query orders and cuts them). Hot comments come
 * from the partial index of hot candidates; the others walk the (post_id, id) index. By offset, the others
 * skip `offset` minus the hot comments the offset already passed.
 */
function pageIds(shape: Shape): SQL {
  const limit = sql`limit ${p('limit')}`;
  const rest = (after: boolean, offset: SQL) =>
    sql`(select r.id from ${comment} r where ${restOf('r')}${after ? afterId('r') : sql``} order by r.id ${limit}${offset})`;
  if (shape === 'afterRest') return rest(true, sql``);
  if (shape === 'afterHot') {
    return sql`(select h.id from ${comment} h where ${hotOf('h')}${afterId('h')} order by h.id ${limit})
      union all ${rest(false, sql``)}`;
  }
  const hotCount = sql`(select count(*) from ${comment} c where ${hotOf('c')})`;
  return sql`(select h.id from ${comment} h where ${hotOf('h')} order by h.id ${limit} offset ${p('offset')})
    union all ${rest(false, sql` offset greatest(${p('offset')}::integer - ${hotCount}, 0)`)}`;
}

function positionOf(cursor: string): { shape: Shape; afterId: number } {
  const [rank, id] = decodeCursor(cursor, ['number', 'number'] as const);
  if ((rank !== 0 && rank !== 1) || id < 1 || id > MAX_ID) {
    throw new BadRequestError('CURSOR_INVALID', 'The cursor is not one this list gave.');
  }
  return { shape: rank === 0 ? 'afterHot' : 'afterRest', afterId: id };
}

/**
 * The comments of a post: hot ones first, then the others, oldest first, by offset or keyset. Two
 * statements in parallel: the post (does the caller see it; its comment count is the total) and the page.
 * A blocked comment keeps its place with its body hidden from non-admins.
 */
export class CommentList {
  private readonly pages: Record<Shape, ReturnType<CommentList['buildPage']>>;
  private readonly postById;

  constructor(
    private readonly db: Database,
    private readonly publicUrl: string,
  ) {
    this.pages = {
      offset: this.buildPage('offset'),
      afterHot: this.buildPage('afterHot'),
      afterRest: this.buildPage('afterRest'),
    };
    this.postById = db
      .select({ blocked: post.blocked, commentCount: post.commentCount })
      .from(post)
      .where(eq(post.id, p('postId')))
      .prepare('board_comments_post');
  }

  async list(viewer: Viewer, postId: number, query: BoardPageQuery): Promise<CommentPage> {
    const { page, size, cursor } = query;
    assertOffsetAllowed(page, size, cursor);
    const position = cursor === undefined ? undefined : positionOf(cursor);
    const values = {
      postId,
      viewerId: viewer.memberId,
      limit: size + 1,
      offset: (page - 1) * size,
      afterId: position?.afterId,
    };
    const [[parent], rows] = await Promise.all([
      this.postById.execute(values),
      this.pages[position?.shape ?? 'offset'].execute(values),
    ]);
    if (!parent || (parent.blocked && !viewer.isAdmin)) throw new NotFoundError('post');
    const { items, hasMore } = pageOf(rows as CommentRow[], size);
    const last = items.at(-1);
    const rank: Rank = last?.hot ? 0 : 1;
    return {
      items: items.map((row) => toComment(row, this.publicUrl, viewer.isAdmin)),
      page: position ? 1 : page,
      size,
      total: parent.commentCount,
      nextCursor: hasMore && last ? encodeCursor([rank, last.id]) : null,
    };
  }

  private buildPage(shape: Shape) {
    return this.db
      .select(commentColumns)
      .from(comment)
      .innerJoin(member, eq(member.id, comment.memberId))
      .leftJoin(commentVote, and(eq(commentVote.commentId, comment.id), eq(commentVote.memberId, p('viewerId'))))
      .where(sql`${comment.id} in (select page.id from (${pageIds(shape)}) page)`)
      .orderBy(desc(isHot('"comment"')), asc(comment.id))
      .limit(p('limit'))
      .prepare(`board_comments_page_${shape}`);
  }
}
