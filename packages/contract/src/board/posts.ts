/** Board posts: list (hot posts alongside), read, write, notices, the caller's own posts. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  IdempotencyHeadersSchema,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  meta,
  paginated,
  problems,
  routerOptions,
  uniqueArray,
  withCommonProblems,
} from '../common.js';
import { nonBlankText, text } from '../text.js';
import {
  AuthorSchema,
  BOARD_EDITS_PER_MINUTE,
  BOARD_PAGING,
  BOARD_TAG_MAX,
  BoardCategorySchema,
  BoardPageQuerySchema,
  boardPageFields,
  HOT_MIN_UP_VOTES,
  HOT_POSTS_MAX,
  HOT_WINDOW_HOURS,
  POST_BODY_MAX,
  POST_RECOMMENDERS_PREVIEW,
  POST_TAGS_MAX,
  POST_TITLE_MAX,
  SPAM_BLOCK_REASON,
  voteFields,
} from './shared.js';

const c = initContract();

/** Posts a member may write per minute; more → 429 RATE_LIMITED. */
export const POSTS_PER_MINUTE = 4;

export const PostSummarySchema = z.object({
  id: IdSchema,
  category: BoardCategorySchema,
  title: text(),
  author: AuthorSchema,
  tags: z.array(text()),
  notice: z.boolean(),
  blocked: z.boolean().describe('Hidden; only admins (and, in their own list, the author) see blocked posts'),
  hot: z.boolean().describe(`Created within ${HOT_WINDOW_HOURS} hours with ${HOT_MIN_UP_VOTES} or more up votes`),
  ...voteFields,
  commentCount: z.number().int().min(0),
  createdAt: InstantSchema,
  updatedAt: InstantSchema,
});
export type PostSummary = z.infer<typeof PostSummarySchema>;

export const PostDetailSchema = PostSummarySchema.extend({
  body: text(),
  blockReason: text()
    .nullable()
    .describe(`Shown to admins (\`${SPAM_BLOCK_REASON}\` from the spam filter, \`REPORTS\`); null otherwise`),
  recommenders: z
    .array(AuthorSchema)
    .max(POST_RECOMMENDERS_PREVIEW)
    .describe('Most recent up-voters (at most 20); see GET …/recommenders for all'),
});
export type PostDetail = z.infer<typeof PostDetailSchema>;

export const PostListQuerySchema = BoardPageQuerySchema.extend({
  category: BoardCategorySchema.optional().describe('Omit for every board'),
  tag: nonBlankText().max(BOARD_TAG_MAX).optional().describe('Only posts carrying this tag'),
});
export type PostListQuery = z.infer<typeof PostListQuerySchema>;

export const PostPageSchema = paginated(PostSummarySchema).extend({
  ...boardPageFields,
  total: z.number().int().min(0).describe('Posts of the filter the caller can see (all pages)'),
  hotPosts: z
    .array(PostSummarySchema)
    .max(HOT_POSTS_MAX)
    .describe(
      `Up to ${HOT_POSTS_MAX} hot posts of the filter, most up-voted first, shown above the list; the same on every page`,
    ),
});
export type PostPage = z.infer<typeof PostPageSchema>;

export const PostTagsSchema = uniqueArray(
  z.array(nonBlankText().max(BOARD_TAG_MAX)).max(POST_TAGS_MAX),
  'tags must be unique',
);

export const CreatePostRequestSchema = z.object({
  category: BoardCategorySchema,
  title: nonBlankText().max(POST_TITLE_MAX),
  body: nonBlankText().max(POST_BODY_MAX),
  tags: PostTagsSchema.default([]).describe('Names from the tag groups of the board'),
  notice: z.boolean().optional().describe('Honoured only for admins'),
});
export type CreatePostRequest = z.infer<typeof CreatePostRequestSchema>;
export const UpdatePostRequestSchema = CreatePostRequestSchema.extend({ tags: PostTagsSchema }).partial();
export type UpdatePostRequest = z.infer<typeof UpdatePostRequestSchema>;

export const MyPostPageSchema = paginated(PostSummarySchema).extend({
  ...boardPageFields,
  total: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe("Your posts (all pages); null on a page read with `cursor` (keep the first page's value)"),
});
export type MyPostPage = z.infer<typeof MyPostPageSchema>;

/** Post routes. */
export const postsContract = withCommonProblems(
  c.router(
    {
      listPosts: {
        method: 'GET',
        path: '/api/board/posts',
        summary: 'Posts of a board: notices first, then newest; hot posts alongside',
        description:
          `Notices first, then newest. Blocked posts are left out for everyone but admins. ${BOARD_PAGING} ` +
          '`total` counts the whole filter on every page.',
        query: PostListQuerySchema,
        responses: { 200: PostPageSchema, ...problems('CURSOR_INVALID', 'OFFSET_TOO_DEEP') },
        metadata: meta('optional'),
      },
      createPost: {
        method: 'POST',
        path: '/api/board/posts',
        summary: 'Write a post (+10 points, capped; blocked when spam is detected)',
        description:
          "`tags` must be names of the tag groups shown on the post's board (else 400 `UNKNOWN_BOARD_TAG`); `notice` " +
          `is honoured for admins only. A post matching a spam keyword is stored blocked (\`blockReason\` ` +
          `\`${SPAM_BLOCK_REASON}\`) and earns no points; otherwise +10 points, at most 50 a day for posts and ` +
          `comments together. At most ${POSTS_PER_MINUTE} posts a minute per member (429 \`RATE_LIMITED\` with ` +
          '`Retry-After`). Send an `Idempotency-Key` so that a retry answers the first result instead of posting twice.',
        headers: IdempotencyHeadersSchema,
        body: CreatePostRequestSchema,
        responses: { 201: PostDetailSchema, ...problems('RATE_LIMITED', 'UNKNOWN_BOARD_TAG', 'NOT_FOUND') },
        metadata: meta('login'),
      },
      getPost: {
        method: 'GET',
        path: '/api/board/posts/:id',
        summary: 'A post; blocked posts are visible to admins only',
        description: `With the ${POST_RECOMMENDERS_PREVIEW} latest up-voters. A blocked post is 404 for everyone but admins.`,
        pathParams: IdParamSchema,
        responses: { 200: PostDetailSchema },
        metadata: meta('optional'),
      },
      updatePost: {
        method: 'PUT',
        path: '/api/board/posts/:id',
        summary: 'Edit your post (admins: any post)',
        description:
          "Omitted fields are kept. Another member's post → 403 `FORBIDDEN`; a blocked post → 404 for everyone but " +
          'admins. Tags are checked against the (new) board when `tags` or `category` is sent; `notice` is honoured ' +
          `for admins only. An edit that matches a spam keyword blocks the post. At most ${BOARD_EDITS_PER_MINUTE} ` +
          'edits of posts and comments a minute per member (429 `RATE_LIMITED`).',
        pathParams: IdParamSchema,
        body: UpdatePostRequestSchema,
        responses: { 200: PostDetailSchema, ...problems('RATE_LIMITED', 'UNKNOWN_BOARD_TAG', 'FORBIDDEN') },
        metadata: meta('login'),
      },
      deletePost: {
        method: 'DELETE',
        path: '/api/board/posts/:id',
        summary: 'Delete your post (admins: any post) with its comments and votes',
        description:
          "Another member's post → 403 `FORBIDDEN`. Its author may delete it even when blocked. Reports stay in " +
          'the report history.',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody(), ...problems('FORBIDDEN') },
        metadata: meta('login'),
      },
      setNotice: {
        method: 'POST',
        path: '/api/board/posts/:id/notice',
        summary: 'Make a post a notice (listed first)',
        pathParams: IdParamSchema,
        body: c.noBody(),
        responses: { 204: c.noBody() },
        metadata: meta('admin'),
      },
      clearNotice: {
        method: 'POST',
        path: '/api/board/posts/:id/unnotice',
        summary: 'Make a notice a normal post',
        pathParams: IdParamSchema,
        body: c.noBody(),
        responses: { 204: c.noBody() },
        metadata: meta('admin'),
      },
      myPosts: {
        method: 'GET',
        path: '/api/board/my/posts',
        summary: 'Your posts, newest first',
        description: `Blocked ones included (marked \`blocked\`). ${BOARD_PAGING}`,
        query: BoardPageQuerySchema,
        responses: { 200: MyPostPageSchema, ...problems('CURSOR_INVALID', 'OFFSET_TOO_DEEP') },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);
