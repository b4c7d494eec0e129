/** Board posts: list (hot posts alongside), read, write, notices, the caller's own posts. */
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
import {
  AuthorSchema,
  BOARD_TAG_MAX,
  BoardCategorySchema,
  POST_BODY_MAX,
  POST_RECOMMENDERS_PREVIEW,
  POST_TAGS_MAX,
  POST_TITLE_MAX,
  voteFields,
} from './shared.js';

const c = initContract();

export const PostSummarySchema = z.object({
  id: IdSchema,
  category: BoardCategorySchema,
  title: text(),
  author: AuthorSchema,
  tags: z.array(text()),
  notice: z.boolean(),
  blocked: z.boolean().describe('Hidden; only admins see blocked posts'),
  hot: z.boolean().describe('Created within 1 day with 50 or more up votes'),
  ...voteFields,
  commentCount: z.number().int().min(0),
  createdAt: InstantSchema,
  updatedAt: InstantSchema,
});
export type PostSummary = z.infer<typeof PostSummarySchema>;

export const PostDetailSchema = PostSummarySchema.extend({
  body: text(),
  blockReason: text().nullable().describe('Shown to admins; null otherwise'),
  recommenders: z
    .array(AuthorSchema)
    .max(POST_RECOMMENDERS_PREVIEW)
    .describe('Most recent up-voters (at most 20); see GET …/recommenders for all'),
});
export type PostDetail = z.infer<typeof PostDetailSchema>;

export const PostListQuerySchema = PageQuerySchema.extend({
  category: BoardCategorySchema.optional().describe('Omit for every board'),
  tag: text().trim().min(1).max(BOARD_TAG_MAX).optional().describe('Only posts carrying this tag'),
});
export type PostListQuery = z.infer<typeof PostListQuerySchema>;

export const PostPageSchema = paginated(PostSummarySchema).extend({
  hotPosts: z
    .array(PostSummarySchema)
    .max(3)
    .describe('Up to 3 hot posts of the filter, shown above the list; the same on every page'),
});
export type PostPage = z.infer<typeof PostPageSchema>;

export const PostTagsSchema = z
  .array(text().trim().min(1).max(BOARD_TAG_MAX))
  .max(POST_TAGS_MAX)
  .refine((tags) => new Set(tags).size === tags.length, 'tags must be unique');

export const CreatePostRequestSchema = z.object({
  category: BoardCategorySchema,
  title: text().trim().min(1).max(POST_TITLE_MAX),
  body: text().trim().min(1).max(POST_BODY_MAX),
  tags: PostTagsSchema.default([]).describe('Names from the tag groups of the board'),
  notice: z.boolean().optional().describe('Honoured only for admins'),
});
export type CreatePostRequest = z.infer<typeof CreatePostRequestSchema>;
export const UpdatePostRequestSchema = CreatePostRequestSchema.extend({ tags: PostTagsSchema }).partial();
export type UpdatePostRequest = z.infer<typeof UpdatePostRequestSchema>;

export const MyPostPageSchema = paginated(PostSummarySchema);
export type MyPostPage = z.infer<typeof MyPostPageSchema>;

/** Post routes. */
export const postsContract = c.router(
  {
    listPosts: {
      method: 'GET',
      path: '/api/board/posts',
      summary: 'Posts of a board: notices first, then newest; hot posts alongside',
      query: PostListQuerySchema,
      responses: { 200: PostPageSchema, ...errorResponses(400) },
      metadata: meta('optional'),
    },
    createPost: {
      method: 'POST',
      path: '/api/board/posts',
      summary: 'Write a post (+10 points, capped; blocked when spam is detected)',
      body: CreatePostRequestSchema,
      responses: { 201: PostDetailSchema, ...errorResponses(400, 401, 413, 415) },
      metadata: meta('login'),
    },
    getPost: {
      method: 'GET',
      path: '/api/board/posts/:id',
      summary: 'A post; blocked posts are visible to admins only',
      pathParams: IdParamSchema,
      responses: { 200: PostDetailSchema, ...errorResponses(400, 404) },
      metadata: meta('optional'),
    },
    updatePost: {
      method: 'PUT',
      path: '/api/board/posts/:id',
      summary: 'Edit your post (admins: any post)',
      pathParams: IdParamSchema,
      body: UpdatePostRequestSchema,
      responses: { 200: PostDetailSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
      metadata: meta('login'),
    },
    deletePost: {
      method: 'DELETE',
      path: '/api/board/posts/:id',
      summary: 'Delete your post (admins: any post) with its comments, votes and reports',
      pathParams: IdParamSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
      metadata: meta('login'),
    },
    setNotice: {
      method: 'POST',
      path: '/api/board/posts/:id/notice',
      summary: 'Make a post a notice (listed first)',
      pathParams: IdParamSchema,
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
      metadata: meta('admin'),
    },
    clearNotice: {
      method: 'POST',
      path: '/api/board/posts/:id/unnotice',
      summary: 'Make a notice a normal post',
      pathParams: IdParamSchema,
      body: c.noBody(),
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404) },
      metadata: meta('admin'),
    },
    myPosts: {
      method: 'GET',
      path: '/api/board/my/posts',
      summary: 'Your posts, newest first',
      query: PageQuerySchema,
      responses: { 200: MyPostPageSchema, ...errorResponses(400, 401) },
      metadata: meta('login'),
    },
  },
  routerOptions,
);
