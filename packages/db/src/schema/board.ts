import { randomBytes } from 'node:crypto';
import { relations, sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgEnum, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { bytea, createdAt, updatedAt } from './_common';
import { member } from './members';

/** Board names as the spec writes them (lower case). */
export const boardCategory = pgEnum('board_category', ['community', 'saving', 'tips']);
export const voteDirection = pgEnum('vote_direction', ['UP', 'DOWN']);
export const reportTargetType = pgEnum('report_target_type', ['POST', 'COMMENT']);

export type BoardCategory = (typeof boardCategory.enumValues)[number];
export type VoteDirection = (typeof voteDirection.enumValues)[number];
export type ReportTargetType = (typeof reportTargetType.enumValues)[number];

/** New random image id: 16 url-safe characters (96 random bits), unguessable, short in post bodies. */
export const newBoardImageId = (): string => randomBytes(12).toString('base64url');

const counter = (name: string) => integer(name).notNull().default(0);

export const post = pgTable(
  'post',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    /** Author. */
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    category: boardCategory('category').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    /** Board tag names chosen from the tag groups of the board. */
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    notice: boolean('notice').notNull().default(false),
    blocked: boolean('blocked').notNull().default(false),
    blockReason: text('block_reason'),
    upCount: counter('up_count'),
    downCount: counter('down_count'),
    reportCount: counter('report_count'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('post_category_id_idx').on(t.category, t.id),
    index('post_notice_idx').on(t.id).where(sql`${t.notice}`),
    index('post_member_id_idx').on(t.memberId, t.id),
    index('post_hot_idx').on(t.createdAt, t.upCount),
    index('post_tags_gin_idx').using('gin', t.tags),
    index('post_blocked_idx').on(t.id).where(sql`${t.blocked}`),
    index('post_reported_idx').on(t.reportCount).where(sql`${t.reportCount} > 0`),
    check('post_counts_non_negative', sql`${t.upCount} >= 0 and ${t.downCount} >= 0 and ${t.reportCount} >= 0`),
  ],
);

export const comment = pgTable(
  'comment',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    postId: integer('post_id')
      .notNull()
      .references(() => post.id, { onDelete: 'cascade' }),
    /** Author. */
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    blocked: boolean('blocked').notNull().default(false),
    blockReason: text('block_reason'),
    upCount: counter('up_count'),
    downCount: counter('down_count'),
    reportCount: counter('report_count'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('comment_post_id_idx').on(t.postId, t.id),
    index('comment_member_id_idx').on(t.memberId, t.id),
    index('comment_blocked_idx').on(t.id).where(sql`${t.blocked}`),
    index('comment_reported_idx').on(t.reportCount).where(sql`${t.reportCount} > 0`),
    check('comment_counts_non_negative', sql`${t.upCount} >= 0 and ${t.downCount} >= 0 and ${t.reportCount} >= 0`),
  ],
);

/** One vote per member per post; toggling updates or deletes the row. */
export const postVote = pgTable(
  'post_vote',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    postId: integer('post_id')
      .notNull()
      .references(() => post.id, { onDelete: 'cascade' }),
    direction: voteDirection('direction').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'post_vote_pk', columns: [t.memberId, t.postId] }),
    index('post_vote_post_direction_idx').on(t.postId, t.direction),
  ],
);

export const commentVote = pgTable(
  'comment_vote',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    commentId: integer('comment_id')
      .notNull()
      .references(() => comment.id, { onDelete: 'cascade' }),
    direction: voteDirection('direction').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'comment_vote_pk', columns: [t.memberId, t.commentId] }),
    index('comment_vote_comment_direction_idx').on(t.commentId, t.direction),
  ],
);

/**
 * One report per member per target. The target is polymorphic (`target_type`, `target_id`) and has
 * no foreign key: the app deletes the reports of a post (and of its comments) or of a comment when
 * it deletes them, and dismissing deletes the target's reports.
 */
export const report = pgTable(
  'report',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    /** Reporter. */
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    targetType: reportTargetType('target_type').notNull(),
    targetId: integer('target_id').notNull(),
    reason: text('reason'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('report_member_target_uq').on(t.memberId, t.targetType, t.targetId),
    index('report_target_idx').on(t.targetType, t.targetId),
  ],
);

/** Uploaded board image, served at `/api/images/{id}`. */
export const boardImage = pgTable(
  'board_image',
  {
    id: text('id').primaryKey().$defaultFn(newBoardImageId),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    contentType: text('content_type').notNull(),
    bytes: bytea('bytes').notNull(),
    byteSize: integer('byte_size').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('board_image_member_idx').on(t.memberId)],
);

/**
 * Board tag group (shared, admin-managed). `boards` lists the boards the group is shown on;
 * an empty list means every board.
 */
export const tagCategory = pgTable('tag_category', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull().unique('tag_category_name_uq'),
  sortOrder: integer('sort_order').notNull().default(0),
  boards: boardCategory('boards').array().notNull().default(sql`'{}'::board_category[]`),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** A tag inside a board tag group. */
export const boardTag = pgTable(
  'board_tag',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    tagCategoryId: integer('tag_category_id')
      .notNull()
      .references(() => tagCategory.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [unique('board_tag_category_name_uq').on(t.tagCategoryId, t.name)],
);

export const postRelations = relations(post, ({ one, many }) => ({
  author: one(member, { fields: [post.memberId], references: [member.id] }),
  comments: many(comment),
  votes: many(postVote),
}));

export const commentRelations = relations(comment, ({ one, many }) => ({
  post: one(post, { fields: [comment.postId], references: [post.id] }),
  author: one(member, { fields: [comment.memberId], references: [member.id] }),
  votes: many(commentVote),
}));

export const postVoteRelations = relations(postVote, ({ one }) => ({
  member: one(member, { fields: [postVote.memberId], references: [member.id] }),
  post: one(post, { fields: [postVote.postId], references: [post.id] }),
}));

export const commentVoteRelations = relations(commentVote, ({ one }) => ({
  member: one(member, { fields: [commentVote.memberId], references: [member.id] }),
  comment: one(comment, { fields: [commentVote.commentId], references: [comment.id] }),
}));

export const reportRelations = relations(report, ({ one }) => ({
  reporter: one(member, { fields: [report.memberId], references: [member.id] }),
}));

export const boardImageRelations = relations(boardImage, ({ one }) => ({
  member: one(member, { fields: [boardImage.memberId], references: [member.id] }),
}));

export const tagCategoryRelations = relations(tagCategory, ({ many }) => ({
  tags: many(boardTag),
}));

export const boardTagRelations = relations(boardTag, ({ one }) => ({
  tagCategory: one(tagCategory, { fields: [boardTag.tagCategoryId], references: [tagCategory.id] }),
}));

export type Post = typeof post.$inferSelect;
export type NewPost = typeof post.$inferInsert;
export type Comment = typeof comment.$inferSelect;
export type NewComment = typeof comment.$inferInsert;
export type PostVote = typeof postVote.$inferSelect;
export type NewPostVote = typeof postVote.$inferInsert;
export type CommentVote = typeof commentVote.$inferSelect;
export type NewCommentVote = typeof commentVote.$inferInsert;
export type Report = typeof report.$inferSelect;
export type NewReport = typeof report.$inferInsert;
export type BoardImage = typeof boardImage.$inferSelect;
export type NewBoardImage = typeof boardImage.$inferInsert;
export type TagCategory = typeof tagCategory.$inferSelect;
export type NewTagCategory = typeof tagCategory.$inferInsert;
export type BoardTag = typeof boardTag.$inferSelect;
export type NewBoardTag = typeof boardTag.$inferInsert;
