/** Board area: posts, comments, votes, reports, notices, images, tag groups. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  errorResponses,
  FileFieldSchema,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  listOf,
  meta,
  PageQuerySchema,
  paginated,
  routerOptions,
} from './common.js';
import type { NamedSchemas } from './schema-names.js';
import { text } from './text.js';

const c = initContract();

// ---------------------------------------------------------------------------
// Fields and limits
// ---------------------------------------------------------------------------

export const boardCategories = ['community', 'saving', 'tips'] as const;
export const BoardCategorySchema = z.enum(boardCategories);
export type BoardCategory = z.infer<typeof BoardCategorySchema>;

export const VoteDirectionSchema = z.enum(['UP', 'DOWN']);
export type VoteDirection = z.infer<typeof VoteDirectionSchema>;
export const ReportTargetTypeSchema = z.enum(['POST', 'COMMENT']);
export type ReportTargetType = z.infer<typeof ReportTargetTypeSchema>;

export const POST_TITLE_MAX = 100;
export const POST_BODY_MAX = 10_000;
export const COMMENT_BODY_MAX = 1_000;
export const REPORT_REASON_MAX = 200;
export const POST_TAGS_MAX = 10;
export const BOARD_TAG_MAX = 30;
/** Board image upload: at most 5 MB, PNG/JPEG/GIF/WebP. */
export const BOARD_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const boardImageTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** Clients show a post or comment with at least this many down votes as blinded. */
export const DOWN_VOTE_BLIND_THRESHOLD = 20;
/** Up-voters embedded in a post detail (the full list is paged at …/recommenders). */
export const POST_RECOMMENDERS_PREVIEW = 20;

export const AuthorSchema = z.object({
  id: IdSchema,
  displayName: text(),
  avatarUrl: text().nullable().describe('Custom picture (data URL) or provider one picture; null when none'),
});
export type Author = z.infer<typeof AuthorSchema>;

const voteFields = {
  upCount: z.number().int().min(0),
  downCount: z.number().int().min(0).describe('Clients blind content with 20 or more down votes'),
  myVote: VoteDirectionSchema.nullable().describe("The caller's vote; null when none or anonymous"),
};

// ---------------------------------------------------------------------------
// Posts
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Comments
// ---------------------------------------------------------------------------

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
export const MyPostPageSchema = paginated(PostSummarySchema);
export type MyPostPage = z.infer<typeof MyPostPageSchema>;

export const CommentBodyRequestSchema = z.object({
  body: text().trim().min(1).max(COMMENT_BODY_MAX),
});
export type CommentBodyRequest = z.infer<typeof CommentBodyRequestSchema>;

// ---------------------------------------------------------------------------
// Votes, reports, recommenders
// ---------------------------------------------------------------------------

export const VoteRequestSchema = z.object({ direction: VoteDirectionSchema });
export type VoteRequest = z.infer<typeof VoteRequestSchema>;
export const VoteResultSchema = z.object(voteFields).describe('Counts after the toggle');
export type VoteResult = z.infer<typeof VoteResultSchema>;

export const ReportRequestSchema = z.object({
  reason: text().trim().min(1).max(REPORT_REASON_MAX),
});
export type ReportRequest = z.infer<typeof ReportRequestSchema>;

export const RecommenderPageSchema = paginated(AuthorSchema);
export type RecommenderPage = z.infer<typeof RecommenderPageSchema>;

// ---------------------------------------------------------------------------
// Images and tag groups
// ---------------------------------------------------------------------------

export const ImageUploadRequestSchema = z.object({
  file: FileFieldSchema.describe('PNG, JPEG, GIF or WebP, at most 5 MB'),
});
export type ImageUploadRequest = z.infer<typeof ImageUploadRequestSchema>;
export const ImageUploadResponseSchema = z.object({
  url: text().url().describe('Absolute URL under the public address, e.g. https://…/api/images/{id}'),
});
export type ImageUploadResponse = z.infer<typeof ImageUploadResponseSchema>;

export const ImageIdParamSchema = z.object({
  id: text().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not an image id'),
});
export type ImageIdParam = z.infer<typeof ImageIdParamSchema>;

export const BoardTagSchema = z.object({ id: IdSchema, name: text(), sortOrder: z.number().int() });
export type BoardTag = z.infer<typeof BoardTagSchema>;
export const TagGroupSchema = z.object({
  id: IdSchema,
  name: text(),
  sortOrder: z.number().int(),
  boards: z.array(BoardCategorySchema).describe('Boards the group is shown on; empty = every board'),
  tags: z.array(BoardTagSchema),
});
export type TagGroup = z.infer<typeof TagGroupSchema>;
export const TagGroupListSchema = listOf(TagGroupSchema);
export type TagGroupList = z.infer<typeof TagGroupListSchema>;
export const TagGroupQuerySchema = z.object({
  category: z
    .enum([...boardCategories, ''])
    .optional()
    .transform((v) => (v ? v : undefined))
    .describe('Board; blank or omitted returns every group'),
});
export type TagGroupQuery = z.infer<typeof TagGroupQuerySchema>;

// ---------------------------------------------------------------------------
// Reports (admin)
// ---------------------------------------------------------------------------

export const ReportedItemSchema = z.object({
  targetType: ReportTargetTypeSchema,
  targetId: IdSchema,
  postId: IdSchema.describe('The post itself, or the post a comment belongs to'),
  postCategory: BoardCategorySchema,
  title: text().describe('Post title (for a comment: the title of its post)'),
  excerpt: text().describe('First 200 characters of the body'),
  author: AuthorSchema,
  reportCount: z.number().int().min(0).describe('0 for an item blocked by the spam filter only'),
  reasons: z.array(text()).describe('Latest report reasons, newest first (at most 10)'),
  blocked: z.boolean(),
  blockReason: text().nullable(),
  createdAt: InstantSchema,
  lastReportedAt: InstantSchema.nullable(),
});
export type ReportedItem = z.infer<typeof ReportedItemSchema>;
export const ReportedItemPageSchema = paginated(ReportedItemSchema);
export type ReportedItemPage = z.infer<typeof ReportedItemPageSchema>;

export const DismissReportRequestSchema = z.object({
  targetType: ReportTargetTypeSchema,
  targetId: IdSchema,
});
export type DismissReportRequest = z.infer<typeof DismissReportRequestSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const boardContract = c.router(
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
    votePost: {
      method: 'POST',
      path: '/api/board/posts/:id/vote',
      summary: 'Toggle an up or down vote on a post (not your own)',
      pathParams: IdParamSchema,
      body: VoteRequestSchema,
      responses: { 200: VoteResultSchema, ...errorResponses(400, 401, 404, 413, 415) },
      metadata: meta('login'),
    },
    voteComment: {
      method: 'POST',
      path: '/api/board/comments/:id/vote',
      summary: 'Toggle an up or down vote on a comment (not your own)',
      pathParams: IdParamSchema,
      body: VoteRequestSchema,
      responses: { 200: VoteResultSchema, ...errorResponses(400, 401, 404, 413, 415) },
      metadata: meta('login'),
    },
    listRecommenders: {
      method: 'GET',
      path: '/api/board/posts/:id/recommenders',
      summary: 'Members who up-voted a post, most recent first',
      pathParams: IdParamSchema,
      query: PageQuerySchema,
      responses: { 200: RecommenderPageSchema, ...errorResponses(400, 401, 404) },
      metadata: meta('login'),
    },
    reportPost: {
      method: 'POST',
      path: '/api/board/posts/:id/report',
      summary: 'Report a post once (blocked at 5 reports)',
      pathParams: IdParamSchema,
      body: ReportRequestSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 404, 409, 413, 415) },
      metadata: meta('login'),
    },
    reportComment: {
      method: 'POST',
      path: '/api/board/comments/:id/report',
      summary: 'Report a comment once (blocked at 5 reports)',
      pathParams: IdParamSchema,
      body: ReportRequestSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 404, 409, 413, 415) },
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
    myComments: {
      method: 'GET',
      path: '/api/board/my/comments',
      summary: 'Your comments with their post title and board, newest first',
      query: PageQuerySchema,
      responses: { 200: MyCommentPageSchema, ...errorResponses(400, 401) },
      metadata: meta('login'),
    },
    tagGroups: {
      method: 'GET',
      path: '/api/board/tag-groups',
      summary: 'Tag groups writable on a board (groups without boards appear everywhere)',
      query: TagGroupQuerySchema,
      responses: { 200: TagGroupListSchema, ...errorResponses(400, 401) },
      metadata: meta('login'),
    },
    uploadImage: {
      method: 'POST',
      path: '/api/board/images',
      summary: 'Upload an image for a post body; returns its short absolute URL',
      contentType: 'multipart/form-data',
      body: ImageUploadRequestSchema,
      responses: { 201: ImageUploadResponseSchema, ...errorResponses(400, 401, 413, 415) },
      metadata: meta('login'),
    },
    getImage: {
      method: 'GET',
      path: '/api/images/:id',
      summary: 'Image bytes (Cache-Control: public, max-age=31536000, immutable)',
      pathParams: ImageIdParamSchema,
      responses: { 200: z.any().describe('Image bytes'), ...errorResponses(400, 404) },
      metadata: meta('public', { binaryResponse: 'image/*' }),
    },
    listReports: {
      method: 'GET',
      path: '/api/board/reports',
      summary: 'Reported and spam-blocked posts and comments, most reported first',
      query: PageQuerySchema,
      responses: { 200: ReportedItemPageSchema, ...errorResponses(400, 401, 403) },
      metadata: meta('admin'),
    },
    dismissReports: {
      method: 'POST',
      path: '/api/board/reports/dismiss',
      summary: 'Clear the reports of a target and show it again (also for spam-blocked items)',
      body: DismissReportRequestSchema,
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 413, 415) },
      metadata: meta('admin'),
    },
  },
  routerOptions,
);

/** Component names of the board area (see schema-names.ts). */
export const boardNamedSchemas: NamedSchemas = {
  Author: AuthorSchema,
  PostSummary: PostSummarySchema,
  PostDetail: PostDetailSchema,
  PostPage: PostPageSchema,
  PostSummaryPage: MyPostPageSchema,
  Comment: CommentSchema,
  CommentPage: CommentPageSchema,
  MyComment: MyCommentSchema,
  MyCommentPage: MyCommentPageSchema,
  VoteResult: VoteResultSchema,
  AuthorPage: RecommenderPageSchema,
  UploadedImage: ImageUploadResponseSchema,
  BoardTag: BoardTagSchema,
  TagGroup: TagGroupSchema,
  TagGroupList: TagGroupListSchema,
  ReportedItem: ReportedItemSchema,
  ReportedItemPage: ReportedItemPageSchema,
  BoardCategory: BoardCategorySchema,
  VoteDirection: VoteDirectionSchema,
  ReportTargetType: ReportTargetTypeSchema,
  CommentRequest: CommentBodyRequestSchema,
  VoteRequest: VoteRequestSchema,
  ReportRequest: ReportRequestSchema,
};
