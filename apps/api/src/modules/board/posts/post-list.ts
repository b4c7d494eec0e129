import {
  boardCategories,
  HOT_POSTS_MAX,
  MAX_ID,
  type PostListQuery,
  type PostPage,
  type VoteDirection,
} from '@nestegg/contract';
import { boardPostCount, type Database, member, post, postTag, postVote } from '@nestegg/db';
import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../../../lib/cursor.js';
import { BadRequestError } from '../../../lib/errors.js';
import type { Viewer } from '../kernel/index.js';
import { assertOffsetAllowed, isHot, pageOf } from '../kernel/index.js';
import { type PostSummaryRow, postSummaryColumns, toPostSummary } from './post.view.js';

const p = sql.placeholder;

/** Which statement a request needs; each combination is one SQL text, prepared once. */
export interface Shape {
  /** One board (else every board). */
  board: boolean;
  tag: boolean;
  /** After a cursor (keyset), else by offset. */
  keyset: boolean;
  /** Admins also see blocked posts. */
  admin: boolean;
}

const keyOf = (shape: Shape) =>
  `${shape.board ? 'b' : 'a'}${shape.tag ? 't' : 'n'}${shape.keyset ? 'k' : 'o'}${shape.admin ? 'A' : 'U'}`;

/**
 * A limit, offset or cursor value as a scalar sub-select: the planner costs it the same with or without the
 * value (an unknown tenth of the range for a limit, an unknown third for the cursor's bound), so a custom plan
 * is never cheaper than the generic one and Postgres keeps the generic plan instead of planning the statement
 * again on every call once the range outgrows the page (the tag page did at 1,000,000 posts, decision BD29;
 * a cursor near the end of the list did too, its custom plan seeing the few rows left, decision BD30).
 */
const opaque = (name: string, type: 'integer' | 'boolean' = 'integer') => sql`(select ${p(name)}::${sql.raw(type)})`;

/**
 * One board's ids in list order (notices first, then newest), read from the index alone: the post's
 * `(category, notice desc, id desc, blocked)` index, or `post_tag`'s `(tag, category, notice desc,
 * post_id desc, blocked)` with a tag.
 */
function boardIds(shape: Shape, category: SQL): SQL {
  const from = shape.tag
    ? sql`select t.post_id as id, t.notice, t.blocked from ${postTag} t where t.tag = ${p('tag')} and t.category = ${category}`
    : sql`select b.id, b.notice, b.blocked from ${post} b where b.category = ${category}`;
  const alias = shape.tag ? 't' : 'b';
  const id = shape.tag ? 't.post_id' : 'b.id';
  const visible = shape.admin ? sql`` : sql.raw(` and not ${alias}.blocked`);
  const after = shape.keyset
    ? sql` and (${sql.raw(`${alias}.notice, ${id}`)}) < (${opaque('afterNotice', 'boolean')}, ${opaque('afterId')})`
    : sql``;
  return sql`${from}${visible}${after} order by ${sql.raw(`${alias}.notice desc, ${id} desc`)}`;
}

/**
 * The page's ids. Every board at once merges the three boards' ranges (a Merge Append over one index),
 * each read at most `depth` (offset + limit) deep, so no second index of the whole table is needed.
 */
function pageIds(shape: Shape): SQL {
  const window = shape.keyset
    ? sql`limit ${opaque('limit')}`
    : sql`limit ${opaque('limit')} offset ${opaque('offset')}`;
  if (shape.board) {
    return sql`select page.id from (${boardIds(shape, sql`${p('category')}::board_category`)} ${window}) page`;
  }
  const branches = boardCategories.map(
    (board) => sql`(${boardIds(shape, sql.raw(`'${board}'::board_category`))} limit ${opaque('depth')})`,
  );
  return sql`select page.id from (${sql.join(branches, sql` union all `)}) page
    order by page.notice desc, page.id desc ${window}`;
}

/** The posts the caller can see in the filter, from the counters the triggers keep. */
function total(shape: Shape): SQL<number> {
  const board = shape.board ? sql` and c.category = ${p('category')}::board_category` : sql``;
  const visible = shape.admin ? sql`` : sql` and not c.blocked`;
  return sql<number>`(select greatest(coalesce(sum(c.post_count), 0), 0)::integer from ${boardPostCount} c
    where c.tag = ${p('countTag')}${board}${visible})`;
}

/** Up to three hot posts of the filter, most up-voted first (the partial index holds only candidates). */
function hotConditions(shape: Shape): SQL | undefined {
  return and(
    isHot('"post"'),
    shape.admin ? undefined : eq(post.blocked, false),
    shape.board ? sql`${post.category} = ${p('category')}::board_category` : undefined,
    shape.tag ? sql`${post.tags} @> array[${p('tag')}::text]` : undefined,
  );
}

/** The position a cursor continues after; anything but a cursor this list gave → 400 CURSOR_INVALID. */
function positionOf(cursor: string): { afterNotice: boolean; afterId: number } {
  const [notice, afterId] = decodeCursor(cursor, ['number', 'number'] as const);
  if ((notice !== 0 && notice !== 1) || afterId < 1 || afterId > MAX_ID) {
    throw new BadRequestError('CURSOR_INVALID', 'The cursor is not one this list gave.');
  }
  return { afterNotice: notice === 1, afterId };
}

type PageRow = PostSummaryRow & { total: number };

/**
 * The caller's vote on the post: one probe of the post's votes per row. As a join, the generic plan (costed
 * for a member of a few votes) read all of the caller's votes and filtered them against every row instead.
 */
const viewerVote = sql<VoteDirection | null>`(select v.direction from ${postVote} v where v.member_id = ${p('viewerId')} and v.post_id = ${post.id})`;

/**
 * The page statement: its ids read first as one array (`= any(array(…))`), so the posts, their authors and
 * the caller's votes are planned for a page of rows, by key, whatever the board's or the tag's size.
 */
export function pageStatement(db: Database, shape: Shape) {
  return db
    .select({ ...postSummaryColumns, myVote: viewerVote, total: total(shape) })
    .from(post)
    .innerJoin(member, eq(member.id, post.memberId))
    .where(sql`${post.id} = any(array(${pageIds(shape)}))`)
    .orderBy(desc(post.notice), desc(post.id));
}

/**
 * The post list: notices first, then newest, by board (or every board) and tag, by offset (`page`) or
 * keyset (`cursor`), with up to three hot posts beside it and the filter's total. Two statements, run in
 * parallel: the page (ids from the order index, then their posts, authors and the caller's votes, plus the
 * total from the counters), and the hot posts; a third reads the total only when the page is empty.
 */
export class PostList {
  private readonly statements = new Map<string, ReturnType<PostList['build']>>();

  constructor(
    private readonly db: Database,
    private readonly publicUrl: string,
  ) {}

  async list(viewer: Viewer, query: PostListQuery): Promise<PostPage> {
    const { page, size, cursor } = query;
    assertOffsetAllowed(page, size, cursor);
    const position = cursor === undefined ? undefined : positionOf(cursor);
    const shape: Shape = {
      board: query.category !== undefined,
      tag: query.tag !== undefined,
      keyset: position !== undefined,
      admin: viewer.isAdmin,
    };
    const offset = position ? 0 : (page - 1) * size;
    const values = {
      category: query.category,
      tag: query.tag,
      countTag: query.tag ?? '',
      viewerId: viewer.memberId,
      limit: size + 1,
      offset,
      depth: offset + size + 1,
      ...position,
    };
    const statements = this.statementsFor(shape);
    const [rows, hotRows]: [PageRow[], PostSummaryRow[]] = await Promise.all([
      statements.page.execute(values),
      statements.hot.execute(values),
    ]);
    const { items, hasMore } = pageOf(rows, size);
    const last = items.at(-1);
    return {
      items: items.map((row) => toPostSummary(row, this.publicUrl)),
      page: position ? 1 : page,
      size,
      total: rows[0]?.total ?? (await this.totalOf(statements, values)),
      nextCursor: hasMore && last ? encodeCursor([last.notice ? 1 : 0, last.id]) : null,
      hotPosts: hotRows.map((row) => toPostSummary(row, this.publicUrl)),
    };
  }

  private async totalOf(statements: ReturnType<PostList['build']>, values: Record<string, unknown>): Promise<number> {
    const [row] = await statements.total.execute(values);
    return row?.total ?? 0;
  }

  private statementsFor(shape: Shape) {
    const key = keyOf(shape);
    let statements = this.statements.get(key);
    if (!statements) {
      statements = this.build(shape, key);
      this.statements.set(key, statements);
    }
    return statements;
  }

  private build(shape: Shape, key: string) {
    const byVoter = and(eq(postVote.postId, post.id), eq(postVote.memberId, p('viewerId')));
    return {
      page: pageStatement(this.db, shape).prepare(`board_posts_page_${key}`),
      hot: this.db
        .select(postSummaryColumns)
        .from(post)
        .innerJoin(member, eq(member.id, post.memberId))
        .leftJoin(postVote, byVoter)
        .where(hotConditions(shape))
        .orderBy(desc(post.upCount), desc(post.id))
        .limit(HOT_POSTS_MAX)
        .prepare(`board_posts_hot_${key}`),
      total: this.db
        .select({ total: total(shape) })
        .from(sql`(select 1) one`)
        .prepare(`board_posts_total_${key}`),
    };
  }
}
