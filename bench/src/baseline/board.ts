import type { FastifyReply, FastifyRequest } from 'fastify';
import type postgres from 'postgres';
import type { BaselineDeps, BaselineHandler } from '../rows/types.js';
import { encodeCursor } from './ledger.js';
import { resolveSession } from './session.js';

/*
 * The api's board reads without the framework (apps/api/src/modules/board/{posts,comments,moderation}): the same
 * statements, written as postgres.js tagged templates whose text is the text drizzle builds (the harness
 * compares them, line breaks included), and the same JSON, built by hand from the rows. Rows whose columns
 * share a name (the post's and its author's `id`) are read as arrays, as drizzle reads them.
 */

type Sql = postgres.Sql;
type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** board-sql.ts / contract constants. */
const HOT_POSTS_MAX = 3;
const POST_RECOMMENDERS_PREVIEW = 20;
const MAX_OFFSET_ROWS = 10_000;
const MAX_ID = 2_147_483_647;
const BOARDS = ['community', 'saving', 'tips'] as const;
/** The api's `publicUrlOf(env)`: the bench starts it with PORT=0 and no PUBLIC_URL. */
const PUBLIC_URL = 'http://localhost:0';
const REASONS_SHOWN = 10;
const EXCERPT_LENGTH = 200;

// ---------------------------------------------------------------------------------------------------
// Shared: the caller, problems, authors
// ---------------------------------------------------------------------------------------------------

interface Viewer {
  memberId: number | null;
  isAdmin: boolean;
}

class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

/** An optional-session route: the caller, or an anonymous reader when there is no (valid) session. */
function viewing(
  deps: BaselineDeps,
  serve: (viewer: Viewer, request: FastifyRequest) => Promise<unknown>,
): BaselineHandler {
  return async (request, reply) => {
    const session = await resolveSession(deps, request);
    const viewer = { memberId: session?.memberId ?? null, isAdmin: session?.role === 'ADMIN' };
    return answer(reply, () => serve(viewer, request));
  };
}

async function answer(reply: FastifyReply, work: () => Promise<unknown>): Promise<unknown> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Problem) return reply.code(error.status).send({ code: error.code });
    throw error;
  }
}

type Query = Record<string, string | undefined>;

/** PageQuerySchema: `page` 1 and `size` 20 by default. */
function pageQuery(query: Query) {
  return { page: Number(query.page ?? 1), size: Number(query.size ?? 20), cursor: query.cursor };
}

/** board-sql.ts `assertOffsetAllowed`. */
function assertOffsetAllowed(page: number, size: number, cursor: string | undefined) {
  if (cursor === undefined && page * size > MAX_OFFSET_ROWS) throw new Problem(400, 'OFFSET_TOO_DEEP');
}

function decodeCursor(cursor: string): [number, number] {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new Problem(400, 'CURSOR_INVALID');
  }
  if (!Array.isArray(decoded) || decoded[0] !== 1 || decoded.length !== 3) throw new Problem(400, 'CURSOR_INVALID');
  const [, rank, id] = decoded as unknown[];
  const valid = (part: unknown): part is number => typeof part === 'number' && Number.isSafeInteger(part);
  if (!valid(rank) || !valid(id) || (rank !== 0 && rank !== 1) || id < 1 || id > MAX_ID) {
    throw new Problem(400, 'CURSOR_INVALID');
  }
  return [rank, id];
}

/** The post id of `/api/board/posts/:id…` (the baseline's route is the request's literal path). */
function postIdOf(request: FastifyRequest): number {
  const match = /^\/api\/board\/posts\/(\d+)/.exec(request.url);
  if (!match) throw new Problem(400, 'VALIDATION_FAILED');
  return Number(match[1]);
}

/** author.view.ts `toAuthor`: the member's own picture (served by the api) first, else the provider's. */
function toAuthor(id: number, displayName: string, profileImageHash: string | null, idponePicture: string | null) {
  return {
    id,
    displayName,
    avatarUrl: profileImageHash ? `${PUBLIC_URL}/api/auth/avatars/${id}-${profileImageHash}` : idponePicture,
  };
}

// ---------------------------------------------------------------------------------------------------
// Posts (posts/post.view.ts, post-list.ts, posts.service.ts)
// ---------------------------------------------------------------------------------------------------

/** post.view.ts `postSummaryColumns` as drizzle writes them (the hot test is board-sql.ts `isHot`). */
const SUMMARY_COLUMNS = `"post"."id", "post"."category", "post"."title", "post"."tags", "post"."notice", "post"."blocked", ("post".up_count >= 50 and "post".created_at > now() - interval '24 hours'), "post"."up_count", "post"."down_count", "post"."comment_count", "post"."created_at", "post"."updated_at", "member"."id", "member"."display_name", "member"."profile_image_hash", "member"."idpone_picture", "post_vote"."direction"`;

/** A post, its author and the caller's vote (the summary columns in order), read as an array. */
type SummaryValues = [
  id: number,
  category: string,
  title: string,
  tags: string[],
  notice: boolean,
  blocked: boolean,
  hot: boolean,
  upCount: number,
  downCount: number,
  commentCount: number,
  createdAt: Date,
  updatedAt: Date,
  authorId: number,
  displayName: string,
  profileImageHash: string | null,
  idponePicture: string | null,
  myVote: string | null,
];

/** The author's columns (author.view.ts `authorColumns`) and the caller's vote, the last of a row. */
type AuthorAndVote = [
  authorId: number,
  displayName: string,
  profileImageHash: string | null,
  idponePicture: string | null,
  myVote: string | null,
];

/** post.view.ts `toPostSummary`, of a row that starts with the summary columns. */
function toPostSummary(row: readonly [...SummaryValues, ...unknown[]]) {
  const [id, category, title, tags, notice, blocked, hot, upCount, downCount, commentCount, createdAt, updatedAt] = row;
  const [authorId, displayName, profileImageHash, idponePicture, myVote] = row.slice(12) as AuthorAndVote;
  return {
    id,
    category,
    title,
    author: toAuthor(authorId, displayName, profileImageHash, idponePicture),
    tags,
    notice,
    blocked,
    hot,
    upCount,
    downCount,
    myVote,
    commentCount,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

/** The post joined to its author and the caller's vote. */
const fromPost = (sql: Sql, viewerId: number | null) =>
  sql`from "post" inner join "member" on "member"."id" = "post"."member_id" left join "post_vote" on ("post_vote"."post_id" = "post"."id" and "post_vote"."member_id" = ${viewerId})`;

interface Shape {
  board: boolean;
  tag: boolean;
  keyset: boolean;
  admin: boolean;
}

interface ListValues {
  category: string | undefined;
  tag: string | undefined;
  countTag: string;
  viewerId: number | null;
  limit: number;
  offset: number;
  depth: number;
  afterNotice?: boolean;
  afterId?: number;
}

/** post-list.ts `opaque`: a limit, offset or cursor value the planner costs the same with or without it. */
const opaque = (sql: Sql, value: number | boolean, type: 'integer' | 'boolean' = 'integer') =>
  sql`(select ${value}::${sql.unsafe(type)})`;

/** post-list.ts `boardIds`: one board's ids in list order, from its order index. */
function boardIds(sql: Sql, shape: Shape, values: ListValues, category: Fragment): Fragment {
  const from = shape.tag
    ? sql`select t.post_id as id, t.notice, t.blocked from "post_tag" t where t.tag = ${values.tag!} and t.category = ${category}`
    : sql`select b.id, b.notice, b.blocked from "post" b where b.category = ${category}`;
  const alias = shape.tag ? 't' : 'b';
  const id = shape.tag ? 't.post_id' : 'b.id';
  const visible = shape.admin ? sql`` : sql.unsafe(` and not ${alias}.blocked`);
  const after = shape.keyset
    ? sql` and (${sql.unsafe(`${alias}.notice, ${id}`)}) < (${opaque(sql, values.afterNotice!, 'boolean')}, ${opaque(sql, values.afterId!)})`
    : sql``;
  return sql`${from}${visible}${after} order by ${sql.unsafe(`${alias}.notice desc, ${id} desc`)}`;
}

/** post-list.ts `pageIds`: one board's range, or the three boards' ranges merged. */
function pageIds(sql: Sql, shape: Shape, values: ListValues): Fragment {
  const window = shape.keyset
    ? sql`limit ${opaque(sql, values.limit)}`
    : sql`limit ${opaque(sql, values.limit)} offset ${opaque(sql, values.offset)}`;
  if (shape.board) {
    return sql`select page.id from (${boardIds(sql, shape, values, sql`${values.category!}::board_category`)} ${window}) page`;
  }
  const branches = BOARDS.map(
    (board) =>
      sql`(${boardIds(sql, shape, values, sql.unsafe(`'${board}'::board_category`))} limit ${opaque(sql, values.depth)})`,
  );
  const merged = branches.reduce((all, branch) => sql`${all} union all ${branch}`);
  return sql`select page.id from (${merged}) page
    order by page.notice desc, page.id desc ${window}`;
}

/** post-list.ts `total`: the caller's visible posts of the filter, from the trigger-kept counters. */
function total(sql: Sql, shape: Shape, values: ListValues): Fragment {
  const board = shape.board ? sql` and c.category = ${values.category!}::board_category` : sql``;
  const visible = shape.admin ? sql`` : sql` and not c.blocked`;
  return sql`(select greatest(coalesce(sum(c.post_count), 0), 0)::integer from "board_post_count" c
    where c.tag = ${values.countTag}${board}${visible})`;
}

/** board-sql.ts `isHot('"post"')`. */
const IS_HOT = `("post".up_count >= 50 and "post".created_at > now() - interval '24 hours')`;

/** post-list.ts `hotConditions`: drizzle's `and` puts parentheses around two or more conditions only. */
function hotConditions(sql: Sql, shape: Shape, values: ListValues): Fragment {
  if (shape.admin && !shape.board && !shape.tag) return sql.unsafe(IS_HOT);
  const blocked = shape.admin ? sql`` : sql` and "post"."blocked" = ${false}`;
  const board = shape.board ? sql` and "post"."category" = ${values.category!}::board_category` : sql``;
  const tag = shape.tag ? sql` and "post"."tags" @> array[${values.tag!}::text]` : sql``;
  return sql`(${sql.unsafe(IS_HOT)}${blocked}${board}${tag})`;
}

type PageValues = [...SummaryValues, total: number];

/** post-list.ts `pageStatement`: the summary columns with the caller's vote read per row (`viewerVote`). */
const LIST_COLUMNS = SUMMARY_COLUMNS.replace(', "post_vote"."direction"', '');

function listPage(sql: Sql, shape: Shape, values: ListValues) {
  const vote = sql`(select v.direction from "post_vote" v where v.member_id = ${values.viewerId} and v.post_id = "post"."id")`;
  return sql`select ${sql.unsafe(LIST_COLUMNS)}, ${vote}, ${total(sql, shape, values)} from "post" inner join "member" on "member"."id" = "post"."member_id" where "post"."id" = any(array(${pageIds(sql, shape, values)})) order by "post"."notice" desc, "post"."id" desc`.values() as unknown as Promise<
    PageValues[]
  >;
}

function hotPosts(sql: Sql, shape: Shape, values: ListValues) {
  return sql`select ${sql.unsafe(SUMMARY_COLUMNS)} ${fromPost(sql, values.viewerId)} where ${hotConditions(sql, shape, values)} order by "post"."up_count" desc, "post"."id" desc limit ${HOT_POSTS_MAX}`.values() as unknown as Promise<
    SummaryValues[]
  >;
}

async function totalOnly(sql: Sql, shape: Shape, values: ListValues): Promise<number> {
  const [row] = (await sql`select ${total(sql, shape, values)} from (select 1) one`.values()) as unknown as [number][];
  return row?.[0] ?? 0;
}

/** GET /api/board/posts: the page and the hot posts in parallel, the total from the page's first row. */
export const postListBaseline = (deps: BaselineDeps) =>
  viewing(deps, async (viewer, request) => {
    const query = request.query as Query;
    const { page, size, cursor } = pageQuery(query);
    assertOffsetAllowed(page, size, cursor);
    const position = cursor === undefined ? undefined : decodeCursor(cursor);
    const tag = query.tag?.trim();
    const shape: Shape = {
      board: query.category !== undefined,
      tag: tag !== undefined,
      keyset: position !== undefined,
      admin: viewer.isAdmin,
    };
    const offset = position ? 0 : (page - 1) * size;
    const values: ListValues = {
      category: query.category,
      tag,
      countTag: tag ?? '',
      viewerId: viewer.memberId,
      limit: size + 1,
      offset,
      depth: offset + size + 1,
      ...(position ? { afterNotice: position[0] === 1, afterId: position[1] } : {}),
    };
    const [rows, hotRows] = await Promise.all([listPage(deps.sql, shape, values), hotPosts(deps.sql, shape, values)]);
    const items = rows.slice(0, size);
    const last = items.at(-1);
    return {
      items: items.map(toPostSummary),
      page: position ? 1 : page,
      size,
      total: rows[0]?.[17] ?? (await totalOnly(deps.sql, shape, values)),
      nextCursor: rows.length > size && last ? encodeCursor([last[4] ? 1 : 0, last[0]]) : null,
      hotPosts: hotRows.map(toPostSummary),
    };
  });

type RecommenderJson = {
  id: number;
  displayName: string;
  profileImageHash: string | null;
  idponePicture: string | null;
};
type DetailValues = [...SummaryValues, body: string, blockReason: string | null, recommenders: RecommenderJson[]];

/** GET /api/board/posts/:id: one statement, the latest up-voters as JSON (post.view.ts `recommendersPreview`). */
export const postDetailBaseline = (deps: BaselineDeps) =>
  viewing(deps, async (viewer, request) => {
    const id = postIdOf(request);
    const [row] =
      (await deps.sql`select ${deps.sql.unsafe(SUMMARY_COLUMNS)}, "post"."body", "post"."block_reason", coalesce((
  select json_agg(json_build_object('id', m.id, 'displayName', m.display_name,
           'profileImageHash', m.profile_image_hash, 'idponePicture', m.idpone_picture)
         order by r.created_at desc, r.member_id desc)
    from (select v.member_id, v.created_at from post_vote v
           where v.post_id = "post"."id" and v.direction = 'UP'
           order by v.created_at desc, v.member_id desc limit ${deps.sql.unsafe(String(POST_RECOMMENDERS_PREVIEW))}) r
    join "member" m on m.id = r.member_id), '[]'::json) ${fromPost(deps.sql, viewer.memberId)} where "post"."id" = ${id}`.values()) as unknown as DetailValues[];
    if (!row || (row[5] && !viewer.isAdmin)) throw new Problem(404, 'NOT_FOUND');
    const [body, blockReason, recommenders] = row.slice(17) as [string, string | null, RecommenderJson[]];
    return {
      ...toPostSummary(row),
      body,
      blockReason: viewer.isAdmin ? blockReason : null,
      recommenders: recommenders.map((author) =>
        toAuthor(author.id, author.displayName, author.profileImageHash, author.idponePicture),
      ),
    };
  });

// ---------------------------------------------------------------------------------------------------
// Comments (comments/comment-list.ts, comment.view.ts)
// ---------------------------------------------------------------------------------------------------

type CommentValues = [
  id: number,
  postId: number,
  body: string,
  blocked: boolean,
  hot: boolean,
  upCount: number,
  downCount: number,
  createdAt: Date,
  updatedAt: Date,
  authorId: number,
  displayName: string,
  profileImageHash: string | null,
  idponePicture: string | null,
  myVote: string | null,
];

/** comment.view.ts `toComment`: a blocked comment keeps its place, its body hidden from non-admins. */
function toComment(row: CommentValues, isAdmin: boolean) {
  const [id, postId, body, blocked, hot, upCount, downCount, createdAt, updatedAt] = row;
  const [authorId, displayName, profileImageHash, idponePicture, myVote] = row.slice(9) as AuthorAndVote;
  return {
    id,
    postId,
    body: blocked && !isAdmin ? null : body,
    author: toAuthor(authorId, displayName, profileImageHash, idponePicture),
    blocked,
    hot,
    upCount,
    downCount,
    myVote,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

const COMMENT_COLUMNS = `"comment"."id", "comment"."post_id", "comment"."body", "comment"."blocked", ("comment".up_count >= 50 and "comment".created_at > now() - interval '24 hours'), "comment"."up_count", "comment"."down_count", "comment"."created_at", "comment"."updated_at", "member"."id", "member"."display_name", "member"."profile_image_hash", "member"."idpone_picture", "comment_vote"."direction"`;

const hotOf = (sql: Sql, alias: string, postId: number) =>
  sql`${sql.unsafe(`${alias}.post_id`)} = ${postId} and (${sql.unsafe(`${alias}.up_count >= 50 and ${alias}.created_at > now() - interval '24 hours'`)})`;
const restOf = (sql: Sql, alias: string, postId: number) =>
  sql`${sql.unsafe(`${alias}.post_id`)} = ${postId} and not (${sql.unsafe(`${alias}.up_count >= 50 and ${alias}.created_at > now() - interval '24 hours'`)})`;

interface CommentPageValues {
  postId: number;
  viewerId: number | null;
  limit: number;
  offset: number;
  afterId: number | undefined;
}

/** comment-list.ts `pageIds`: hot comments from their partial index, then the others. */
function commentIds(sql: Sql, shape: 'offset' | 'afterHot' | 'afterRest', values: CommentPageValues): Fragment {
  const { postId, limit, offset, afterId } = values;
  const after = (alias: string) => sql` and ${sql.unsafe(`${alias}.id`)} > ${afterId!}::integer`;
  const rest = (isAfter: boolean, skip: Fragment) =>
    sql`(select r.id from "comment" r where ${restOf(sql, 'r', postId)}${isAfter ? after('r') : sql``} order by r.id limit ${limit}${skip})`;
  if (shape === 'afterRest') return rest(true, sql``);
  if (shape === 'afterHot') {
    return sql`(select h.id from "comment" h where ${hotOf(sql, 'h', postId)}${after('h')} order by h.id limit ${limit})
      union all ${rest(false, sql``)}`;
  }
  const hotCount = sql`(select count(*) from "comment" c where ${hotOf(sql, 'c', postId)})`;
  return sql`(select h.id from "comment" h where ${hotOf(sql, 'h', postId)} order by h.id limit ${limit} offset ${offset})
    union all ${rest(false, sql` offset greatest(${offset}::integer - ${hotCount}, 0)`)}`;
}

/** GET /api/board/posts/:id/comments: the post (visibility, total) and the page in parallel. */
export const commentListBaseline = (deps: BaselineDeps) =>
  viewing(deps, async (viewer, request) => {
    const { sql } = deps;
    const postId = postIdOf(request);
    const { page, size, cursor } = pageQuery(request.query as Query);
    assertOffsetAllowed(page, size, cursor);
    const position = cursor === undefined ? undefined : decodeCursor(cursor);
    const shape = position ? (position[0] === 0 ? 'afterHot' : 'afterRest') : 'offset';
    const values = {
      postId,
      viewerId: viewer.memberId,
      limit: size + 1,
      offset: (page - 1) * size,
      afterId: position?.[1],
    };
    const [[parent], rows] = await Promise.all([
      sql<
        { blocked: boolean; comment_count: number }[]
      >`select "blocked", "comment_count" from "post" where "post"."id" = ${postId}`,
      sql`select ${sql.unsafe(COMMENT_COLUMNS)} from "comment" inner join "member" on "member"."id" = "comment"."member_id" left join "comment_vote" on ("comment_vote"."comment_id" = "comment"."id" and "comment_vote"."member_id" = ${values.viewerId}) where "comment"."id" in (select page.id from (${commentIds(sql, shape, values)}) page) order by ("comment".up_count >= 50 and "comment".created_at > now() - interval '24 hours') desc, "comment"."id" asc limit ${values.limit}`.values() as unknown as Promise<
        CommentValues[]
      >,
    ]);
    if (!parent || (parent.blocked && !viewer.isAdmin)) throw new Problem(404, 'NOT_FOUND');
    const items = rows.slice(0, size);
    const last = items.at(-1);
    return {
      items: items.map((row) => toComment(row, viewer.isAdmin)),
      page: position ? 1 : page,
      size,
      total: parent.comment_count,
      nextCursor: rows.length > size && last ? encodeCursor([last[4] ? 0 : 1, last[0]]) : null,
    };
  });

// ---------------------------------------------------------------------------------------------------
// The admin's report list (moderation/report-list.ts)
// ---------------------------------------------------------------------------------------------------

/** Posts and comments with open reports or blocked, from their partial indexes. */
const FLAGGED = `
  select 'POST'::report_target_type as target_type, p.id as target_id, p.id as post_id, p.member_id as author_id,
         p.report_count, p.blocked, p.block_reason, p.created_at
    from "post" p where p.report_count > 0 or p.blocked
  union all
  select 'COMMENT'::report_target_type, c.id, c.post_id, c.member_id, c.report_count, c.blocked, c.block_reason,
         c.created_at
    from "comment" c where c.report_count > 0 or c.blocked`;

interface ReportedRow {
  target_type: string;
  target_id: number;
  post_id: number;
  post_category: string;
  title: string;
  excerpt: string;
  author_id: number;
  author_name: string;
  author_picture: string | null;
  author_picture_hash: string | null;
  report_count: number;
  counted_report_count: number;
  reasons: string[];
  blocked: boolean;
  block_reason: string | null;
  created_at: string;
  last_reported_at: string | null;
}

function reportedPage(sql: Sql, limit: number, offset: number) {
  return sql<ReportedRow[]>`
    with page as (select * from (${sql.unsafe(FLAGGED)}) f order by f.report_count desc, f.created_at desc, f.target_type, f.target_id desc limit ${limit} offset ${offset})
    select page.target_type, page.target_id, page.post_id, parent.category as post_category, parent.title,
           left(coalesce((select c.body from "comment" c where page.target_type = 'COMMENT' and c.id = page.target_id), parent.body), ${EXCERPT_LENGTH}) as excerpt,
           m.id as author_id, m.display_name as author_name, m.idpone_picture as author_picture,
           m.profile_image_hash as author_picture_hash,
           page.report_count, coalesce(open.counted, 0) as counted_report_count,
           coalesce(open.reasons, '{}') as reasons, page.blocked, page.block_reason,
           to_char(page.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(open.last_reported_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_reported_at
      from page
      join "post" parent on parent.id = page.post_id
      join "member" m on m.id = page.author_id
      left join lateral (
        select (array_agg(r.reason order by r.id desc) filter (where r.reason is not null))[1:${REASONS_SHOWN}] as reasons,
               max(r.created_at) as last_reported_at, (count(*) filter (where r.counted))::int as counted
          from "report" r
         where r.target_type = page.target_type and r.target_id = page.target_id and r.resolution_id is null
      ) open on true
     order by page.report_count desc, page.created_at desc, page.target_type, page.target_id desc`;
}

/** GET /api/board/reports (admins): the page and the count in parallel. */
export const reportListBaseline =
  (deps: BaselineDeps): BaselineHandler =>
  async (request, reply) => {
    const session = await resolveSession(deps, request);
    if (!session) return reply.code(401).send({ code: 'UNAUTHENTICATED' });
    if (session.role !== 'ADMIN') return reply.code(403).send({ code: 'ADMIN_REQUIRED' });
    const { page, size } = pageQuery(request.query as Query);
    if (page * size > MAX_OFFSET_ROWS) return reply.code(400).send({ code: 'OFFSET_TOO_DEEP' });
    const [rows, [counted]] = await Promise.all([
      reportedPage(deps.sql, size, (page - 1) * size),
      deps.sql<{ total: number }[]>`select count(*)::int as total from (${deps.sql.unsafe(FLAGGED)}) f`,
    ]);
    return {
      items: rows.map((row) => ({
        targetType: row.target_type,
        targetId: row.target_id,
        postId: row.post_id,
        postCategory: row.post_category,
        title: row.title,
        excerpt: row.excerpt,
        author: toAuthor(row.author_id, row.author_name, row.author_picture_hash, row.author_picture),
        reportCount: row.report_count,
        countedReportCount: row.counted_report_count,
        reasons: row.reasons,
        blocked: row.blocked,
        blockReason: row.block_reason,
        createdAt: row.created_at,
        lastReportedAt: row.last_reported_at,
      })),
      page,
      size,
      total: counted?.total ?? 0,
    };
  };
