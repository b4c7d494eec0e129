/** Board area: posts, comments, votes, reports, notices, images, tag groups. One file per domain. */
import type { NamedSchemas } from '../schema-names.js';
import {
  CommentBodyRequestSchema,
  CommentPageSchema,
  CommentSchema,
  commentsContract,
  MyCommentPageSchema,
  MyCommentSchema,
} from './comments.js';
import { ImageUploadResponseSchema, imagesContract } from './images.js';
import {
  ModerationEventSchema,
  moderationContract,
  ReportedItemPageSchema,
  ReportedItemSchema,
  ReportHistorySchema,
  ReportRecordSchema,
  ReportRequestSchema,
} from './moderation.js';
import { MyPostPageSchema, PostDetailSchema, PostPageSchema, PostSummarySchema, postsContract } from './posts.js';
import { AuthorSchema, BoardCategorySchema, ReportTargetTypeSchema, VoteDirectionSchema } from './shared.js';
import { CreateSpamKeywordRequestSchema, SpamKeywordListSchema, SpamKeywordSchema, spamContract } from './spam.js';
import {
  BoardTagRequestSchema,
  BoardTagSchema,
  TagGroupListSchema,
  TagGroupSchema,
  tagGroupsContract,
} from './tag-groups.js';
import { RecommenderPageSchema, VoteRequestSchema, VoteResultSchema, votesContract } from './votes.js';

export * from './comments.js';
export * from './images.js';
export * from './moderation.js';
export * from './posts.js';
export * from './shared.js';
export * from './spam.js';
export * from './tag-groups.js';
export * from './votes.js';

/** The board's routes, one flat router (clients call `contract.board.listPosts`). */
export const boardContract: typeof postsContract &
  typeof commentsContract &
  typeof votesContract &
  typeof moderationContract &
  typeof imagesContract &
  typeof tagGroupsContract &
  typeof spamContract = {
  ...postsContract,
  ...commentsContract,
  ...votesContract,
  ...moderationContract,
  ...imagesContract,
  ...tagGroupsContract,
  ...spamContract,
};

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
  BoardTagRequest: BoardTagRequestSchema,
  ReportedItem: ReportedItemSchema,
  ReportedItemPage: ReportedItemPageSchema,
  ReportRecord: ReportRecordSchema,
  ReportHistory: ReportHistorySchema,
  ModerationEvent: ModerationEventSchema,
  BoardCategory: BoardCategorySchema,
  VoteDirection: VoteDirectionSchema,
  ReportTargetType: ReportTargetTypeSchema,
  CommentRequest: CommentBodyRequestSchema,
  VoteRequest: VoteRequestSchema,
  ReportRequest: ReportRequestSchema,
  SpamKeyword: SpamKeywordSchema,
  SpamKeywordList: SpamKeywordListSchema,
  SpamKeywordRequest: CreateSpamKeywordRequestSchema,
};
