/** Board comments: list (hot first), write, the caller's own comments. */
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
  withCommonProblems,
} from '../common.js';
import { nonBlankText, text } from '../text.js';
import {
  AuthorSchema,
  BOARD_EDITS_PER_MINUTE,
  BOARD_PAGING,
  BoardCategorySchema,
  BoardPageQuerySchema,
  boardPageFields,
  COMMENT_BODY_MAX,
  HOT_MIN_UP_VOTES,
  HOT_WINDOW_HOURS,
  SPAM_BLOCK_REASON,
  voteFields,
} from './shared.js';

const c = initContract();

/** Comments a member may write per minute; more → 429 RATE_LIMITED. */
export const COMMENTS_PER_MINUTE = 12;

export const CommentSchema = z.object({
  id: IdSchema,
  postId: IdSchema,
  body: text().nullable().describe('null when blocked and the caller is not an admin'),
  author: AuthorSchema,
  blocked: z.boolean(),
  hot: z.boolean().describe(`Created within ${HOT_WINDOW_HOURS} hours with ${HOT_MIN_UP_VOTES} or more up votes`),
  ...voteFields,
  createdAt: InstantSchema,
  updatedAt: InstantSchema,
});
export type Comment = z.infer<typeof CommentSchema>;

export const MyCommentSchema = CommentSchema.extend({
  postTitle: text(),
  postCategory: BoardCategorySchema,
});
export type MyComment = z.infer<typeof MyCommentSchema>;

export const CommentPageSchema = paginated(CommentSchema).extend({
  ...boardPageFields,
  total: z.number().int().min(0).describe('Comments of the post, blocked ones included (all pages)'),
});
export type CommentPage = z.infer<typeof CommentPageSchema>;
export const MyCommentPageSchema = paginated(MyCommentSchema).extend({
  ...boardPageFields,
  total: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe("Your comments (all pages); null on a page read with `cursor` (keep the first page's value)"),
});
export type MyCommentPage = z.infer<typeof MyCommentPageSchema>;

export const CommentBodyRequestSchema = z.object({
  body: nonBlankText().max(COMMENT_BODY_MAX),
});
export type CommentBodyRequest = z.infer<typeof CommentBodyRequestSchema>;

/** Comment routes. */
export const commentsContract = withCommonProblems(
  c.router(
    {
      listComments: {
        method: 'GET',
        path: '/api/board/posts/:id/comments',
        summary: 'Comments of a post: hot first, then oldest first',
        description:
          `Hot comments (oldest first among them), then the others, oldest first. ${BOARD_PAGING} A blocked ` +
          "comment's `body` is null for everyone but admins; a blocked post is 404 for everyone but admins.",
        pathParams: IdParamSchema,
        query: BoardPageQuerySchema,
        responses: { 200: CommentPageSchema, ...problems('CURSOR_INVALID', 'OFFSET_TOO_DEEP') },
        metadata: meta('optional'),
      },
      createComment: {
        method: 'POST',
        path: '/api/board/posts/:id/comments',
        summary: 'Comment on a post (+10 points, capped; blocked when spam is detected)',
        description:
          `A comment matching a spam keyword is stored blocked (\`blockReason\` \`${SPAM_BLOCK_REASON}\` for admins) ` +
          'and earns no points; otherwise +10 points, at most 50 a day for posts and comments together. A blocked ' +
          `post is 404 for everyone but admins. At most ${COMMENTS_PER_MINUTE} comments a minute per member (429 ` +
          '`RATE_LIMITED` with `Retry-After`). Send an `Idempotency-Key` so that a retry answers the first result ' +
          'instead of commenting twice.',
        pathParams: IdParamSchema,
        headers: IdempotencyHeadersSchema,
        body: CommentBodyRequestSchema,
        responses: { 201: CommentSchema, ...problems('RATE_LIMITED') },
        metadata: meta('login'),
      },
      updateComment: {
        method: 'PUT',
        path: '/api/board/comments/:id',
        summary: 'Edit your comment (admins: any comment)',
        description:
          "Another member's comment, or a blocked one, → 403 `FORBIDDEN` (admins may edit any). An edit that " +
          `matches a spam keyword blocks the comment. At most ${BOARD_EDITS_PER_MINUTE} edits of posts and ` +
          'comments a minute per member (429 `RATE_LIMITED`).',
        pathParams: IdParamSchema,
        body: CommentBodyRequestSchema,
        responses: { 200: CommentSchema, ...problems('RATE_LIMITED', 'FORBIDDEN') },
        metadata: meta('login'),
      },
      deleteComment: {
        method: 'DELETE',
        path: '/api/board/comments/:id',
        summary: 'Delete your comment (admins: any comment)',
        description: "Another member's comment → 403 `FORBIDDEN`; its author may delete it even when blocked.",
        pathParams: IdParamSchema,
        responses: { 204: c.noBody(), ...problems('FORBIDDEN') },
        metadata: meta('login'),
      },
      myComments: {
        method: 'GET',
        path: '/api/board/my/comments',
        summary: 'Your comments with their post title and board, newest first',
        description:
          `Comments on posts you cannot read (blocked posts of others) are left out; a blocked comment's \`body\` ` +
          `is null. ${BOARD_PAGING}`,
        query: BoardPageQuerySchema,
        responses: { 200: MyCommentPageSchema, ...problems('CURSOR_INVALID', 'OFFSET_TOO_DEEP') },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);
