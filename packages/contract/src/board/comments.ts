/** Board comments: list (hot first), write, the caller's own comments. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  errorResponses,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  meta,
  PageQuerySchema,
  paginated,
  routerOptions,
} from '../common.js';
import { text } from '../text.js';
import { AuthorSchema, BoardCategorySchema, COMMENT_BODY_MAX, voteFields } from './shared.js';

const c = initContract();

export const CommentSchema = z.object({
  id: IdSchema,
  postId: IdSchema,
  body: text().nullable().describe('null when blocked and the caller is not an admin'),
  author: AuthorSchema,
  blocked: z.boolean(),
  hot: z.boolean(),
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

export const CommentPageSchema = paginated(CommentSchema);
export type CommentPage = z.infer<typeof CommentPageSchema>;
export const MyCommentPageSchema = paginated(MyCommentSchema);
export type MyCommentPage = z.infer<typeof MyCommentPageSchema>;

export const CommentBodyRequestSchema = z.object({
  body: text().trim().min(1).max(COMMENT_BODY_MAX),
});
export type CommentBodyRequest = z.infer<typeof CommentBodyRequestSchema>;

/** Comment routes. */
export const commentsContract = c.router(
  {
    listComments: {
      method: 'GET',
      path: '/api/board/posts/:id/comments',
      summary: 'Comments of a post: hot first, then oldest first',
      pathParams: IdParamSchema,
      query: PageQuerySchema,
      responses: { 200: CommentPageSchema, ...errorResponses(400, 404) },
      metadata: meta('optional'),
    },
    createComment: {
      method: 'POST',
      path: '/api/board/posts/:id/comments',
      summary: 'Comment on a post (+10 points, capped; blocked when spam is detected)',
      pathParams: IdParamSchema,
      body: CommentBodyRequestSchema,
      responses: { 201: CommentSchema, ...errorResponses(400, 401, 404, 413, 415) },
      metadata: meta('login'),
    },
    updateComment: {
      method: 'PUT',
      path: '/api/board/comments/:id',
      summary: 'Edit your comment (admins: any comment)',
      pathParams: IdParamSchema,
      body: CommentBodyRequestSchema,
      responses: { 200: CommentSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
      metadata: meta('login'),
    },
    deleteComment: {
      method: 'DELETE',
      path: '/api/board/comments/:id',
      summary: 'Delete your comment (admins: any comment)',
      pathParams: IdParamSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
      metadata: meta('login'),
    },
    myComments: {
      method: 'GET',
      path: '/api/board/my/comments',
      summary: 'Your comments with their post title and board, newest first',
      query: PageQuerySchema,
      responses: { 200: MyCommentPageSchema, ...errorResponses(400, 401) },
      metadata: meta('login'),
    },
  },
  routerOptions,
);
