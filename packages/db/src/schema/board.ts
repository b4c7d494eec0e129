import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgEnum, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { bytea, createdAt, instant, updatedAt } from './_common';
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
    /** Board tag names chosen from the tag groups of the board (mirrored into `post_tag` by triggers). */
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    notice: boolean('notice').notNull().default(false),
    /** Hidden from everyone but admins (5 counted reports, or spam at writing). */
    blocked: boolean('blocked').notNull().default(false),
    /** Why it is blocked: `SPAM` (the spam filter, at writing or editing) or `REPORTS` (automatic block). */
    blockReason: text('block_reason'),
    upCount: counter('up_count'),
    downCount: counter('down_count'),
    reportCount: counter('report_count'),
    /** Comments of the post, blocked ones included; kept by triggers on `comment` (never written by the app). */
    commentCount: counter('comment_count'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // The list's order (notices first, then newest), per board; `blocked` last so that pages, deep offsets
    // included, are read from the index alone. Every board at once merges the three boards' ranges.
    index('post_board_order_idx').on(t.category, t.notice.desc().nullsFirst(), t.id.desc().nullsFirst(), t.blocked),
    index('post_member_id_idx').on(t.memberId, t.id),
    // Hot candidates (HOT_MIN_UP_VOTES in the contract): few rows, read by creation time.
    index('post_hot_idx').on(t.createdAt).where(sql`${t.upCount} >= 50`),
    index('post_blocked_idx').on(t.id).where(sql`${t.blocked}`),
    index('post_reported_idx').on(t.reportCount).where(sql`${t.reportCount} > 0`),
    check('post_counts_non_negative', sql`${t.upCount} >= 0 and ${t.downCount} >= 0 and ${t.reportCount} >= 0`),
    check('post_comment_count_non_negative', sql`${t.commentCount} >= 0`),
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
    /** Shown with its body hidden to everyone but admins (5 counted reports, or spam at writing). */
    blocked: boolean('blocked').notNull().default(false),
    /** Why it is blocked: `SPAM` or `REPORTS`, as for posts. */
    blockReason: text('block_reason'),
    upCount: counter('up_count'),
    downCount: counter('down_count'),
    reportCount: counter('report_count'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('comment_post_id_idx').on(t.postId, t.id),
    // Hot comments of a post (HOT_MIN_UP_VOTES in the contract), listed first.
    index('comment_hot_idx').on(t.postId, t.id).where(sql`${t.upCount} >= 50`),
    index('comment_member_id_idx').on(t.memberId, t.id),
    index('comment_blocked_idx').on(t.id).where(sql`${t.blocked}`),
    index('comment_reported_idx').on(t.reportCount).where(sql`${t.reportCount} > 0`),
    check('comment_counts_non_negative', sql`${t.upCount} >= 0 and ${t.downCount} >= 0 and ${t.reportCount} >= 0`),
  ],
);

/**
 * One row per tag of a post, with the post's board, notice flag and block: the tag filter reads a post
 * list in its order from `(tag, category, notice desc, post_id desc)` whatever the tag's share of the
 * board. Written only by triggers on `post` (migration 'board_post_lists'); `post.tags` stays the source.
 */
export const postTag = pgTable(
  'post_tag',
  {
    postId: integer('post_id')
      .notNull()
      .references(() => post.id, { onDelete: 'cascade' }),
    tag: text('tag').notNull(),
    category: boardCategory('category').notNull(),
    notice: boolean('notice').notNull(),
    blocked: boolean('blocked').notNull(),
  },
  (t) => [
    primaryKey({ name: 'post_tag_pk', columns: [t.postId, t.tag] }),
    index('post_tag_order_idx').on(
      t.tag,
      t.category,
      t.notice.desc().nullsFirst(),
      t.postId.desc().nullsFirst(),
      t.blocked,
    ),
  ],
);

/**
 * How many posts each board holds, per tag (`''`: all of the board's posts) and block state: the list's
 * `total` without counting rows. Kept by triggers on `post` (migration 'board_post_lists').
 */
export const boardPostCount = pgTable(
  'board_post_count',
  {
    category: boardCategory('category').notNull(),
    tag: text('tag').notNull(),
    blocked: boolean('blocked').notNull(),
    postCount: integer('post_count').notNull(),
  },
  (t) => [primaryKey({ name: 'board_post_count_pk', columns: [t.category, t.tag, t.blocked] })],
);

/**
 * Admin-managed spam keywords. New posts and comments (and edits) whose normalised text contains one are
 * blocked with `block_reason` `SPAM`. `normalized` is the keyword as the filter compares it (NFKC, lower
 * case, invisible format characters removed, whitespace runs as one space).
 */
export const spamKeyword = pgTable('spam_keyword', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  keyword: text('keyword').notNull(),
  normalized: text('normalized').notNull().unique('spam_keyword_normalized_uq'),
  createdAt: createdAt(),
});

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
    /** Points the author received (+) or lost (−) for this vote: given back when the vote goes or switches. */
    authorPoints: integer('author_points').notNull().default(0),
    /** When the current direction was chosen (a switch resets it): recommenders are listed newest first. */
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'post_vote_pk', columns: [t.memberId, t.postId] }),
    // Recommenders newest first (post, 'UP', then the keyset); also serves the cascade from a deleted post.
    index('post_vote_post_direction_idx').on(t.postId, t.direction, t.createdAt, t.memberId),
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
    /** Points the author received (+) or lost (−) for this vote: given back when the vote goes or switches. */
    authorPoints: integer('author_points').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'comment_vote_pk', columns: [t.memberId, t.commentId] }),
    index('comment_vote_comment_direction_idx').on(t.commentId, t.direction),
  ],
);

/**
 * One report per member per target, ever: a report is history, never deleted by moderation. It keeps
 * the content as it was when reported; a dismissal or a deletion of the content closes it
 * (`resolution_id`), so it stops counting but its reporter cannot report the same target again. Active
 * reports (`resolution_id` null) are what `report_count` on the target counts. The target is polymorphic
 * (`target_type`, `target_id`) and has no foreign key: the history outlives the content. Withdrawal
 * deletes a member's reports and the reports on their content (spec rule 5).
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
    /** Whether it counts toward the automatic block: false when the reporter's account was too new. */
    counted: boolean('counted').notNull().default(false),
    /** The post title when reported (null for a comment). */
    snapshotTitle: text('snapshot_title'),
    /** The post or comment body when reported. */
    snapshotBody: text('snapshot_body'),
    /** The dismissal or deletion that closed it; null while active. */
    resolutionId: integer('resolution_id').references(() => moderationEvent.id),
    createdAt: createdAt(),
  },
  (t) => [
    unique('report_member_target_uq').on(t.memberId, t.targetType, t.targetId),
    index('report_target_idx').on(t.targetType, t.targetId, t.id),
    index('report_resolution_idx').on(t.resolutionId).where(sql`${t.resolutionId} is not null`),
  ],
);

export const moderationAction = pgEnum('moderation_action', ['BLOCKED', 'DISMISSED', 'CONTENT_DELETED']);
export type ModerationAction = (typeof moderationAction.enumValues)[number];

/**
 * What happened to a reported or blocked target, in order: the automatic block (no actor), an admin's
 * dismissal, the content's deletion. Reports closed by a dismissal or deletion point at it.
 */
export const moderationEvent = pgTable(
  'moderation_event',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    targetType: reportTargetType('target_type').notNull(),
    targetId: integer('target_id').notNull(),
    action: moderationAction('action').notNull(),
    /** The admin or author who acted; null for the automatic block, or once the actor has withdrawn. */
    actorId: integer('actor_id').references(() => member.id, { onDelete: 'set null' }),
    /** Why a block happened (`REPORTS`); null otherwise. */
    reason: text('reason'),
    createdAt: createdAt(),
  },
  (t) => [
    index('moderation_event_target_idx').on(t.targetType, t.targetId, t.id),
    index('moderation_event_actor_idx').on(t.actorId).where(sql`${t.actorId} is not null`),
  ],
);

/**
 * Uploaded board image, served at `/api/images/{id}`. Which posts and comments show it is kept in
 * `post_image`/`comment_image` by triggers on `post` and `comment` (migration 'board_image_references');
 * the same triggers stamp `unreferenced_since` when the last of them goes, and the worker's
 * board-image-cleanup job deletes images unreferenced for longer than its grace period.
 */
export const boardImage = pgTable(
  'board_image',
  {
    id: text('id').primaryKey().$defaultFn(newBoardImageId),
    /** Uploader. */
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    contentType: text('content_type').notNull(),
    bytes: bytea('bytes').notNull(),
    byteSize: integer('byte_size').notNull(),
    createdAt: createdAt(),
    /** Since when no post or comment shows the image; null while one does (set by triggers). */
    unreferencedSince: instant('unreferenced_since').defaultNow(),
  },
  (t) => [
    // The upload quota sums a member's last 24 hours.
    index('board_image_member_created_idx').on(t.memberId, t.createdAt),
    index('board_image_unreferenced_idx').on(t.unreferencedSince).where(sql`${t.unreferencedSince} is not null`),
  ],
);

/**
 * An image a post body shows (`/api/images/{id}`), written only by the triggers on `post`; `member_id` is
 * the post's author. Deleting the post or the image deletes the row.
 */
export const postImage = pgTable(
  'post_image',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    postId: integer('post_id')
      .notNull()
      .references(() => post.id, { onDelete: 'cascade' }),
    imageId: text('image_id')
      .notNull()
      .references(() => boardImage.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ name: 'post_image_pk', columns: [t.postId, t.imageId] }),
    index('post_image_image_idx').on(t.imageId),
  ],
);

/** An image a comment body shows, as `post_image` for posts (written by the triggers on `comment`). */
export const commentImage = pgTable(
  'comment_image',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    commentId: integer('comment_id')
      .notNull()
      .references(() => comment.id, { onDelete: 'cascade' }),
    imageId: text('image_id')
      .notNull()
      .references(() => boardImage.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ name: 'comment_image_pk', columns: [t.commentId, t.imageId] }),
    index('comment_image_image_idx').on(t.imageId),
  ],
);

/**
 * Board tag group (shared, admin-managed). `boards` lists the boards the group is shown on;
 * an empty list means every board.
 */
export const tagCategory = pgTable(
  'tag_category',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull().unique('tag_category_name_uq'),
    sortOrder: integer('sort_order').notNull().default(0),
    boards: boardCategory('boards').array().notNull().default(sql`'{}'::board_category[]`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [check('tag_category_sort_order_non_negative', sql`${t.sortOrder} >= 0`)],
);

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
  (t) => [
    unique('board_tag_category_name_uq').on(t.tagCategoryId, t.name),
    check('board_tag_sort_order_non_negative', sql`${t.sortOrder} >= 0`),
  ],
);

export type Post = typeof post.$inferSelect;
export type NewPost = typeof post.$inferInsert;
export type Comment = typeof comment.$inferSelect;
export type NewComment = typeof comment.$inferInsert;
export type PostTag = typeof postTag.$inferSelect;
export type BoardPostCount = typeof boardPostCount.$inferSelect;
export type SpamKeyword = typeof spamKeyword.$inferSelect;
export type NewSpamKeyword = typeof spamKeyword.$inferInsert;
export type PostVote = typeof postVote.$inferSelect;
export type NewPostVote = typeof postVote.$inferInsert;
export type CommentVote = typeof commentVote.$inferSelect;
export type NewCommentVote = typeof commentVote.$inferInsert;
export type Report = typeof report.$inferSelect;
export type NewReport = typeof report.$inferInsert;
export type ModerationEvent = typeof moderationEvent.$inferSelect;
export type NewModerationEvent = typeof moderationEvent.$inferInsert;
export type BoardImage = typeof boardImage.$inferSelect;
export type NewBoardImage = typeof boardImage.$inferInsert;
export type PostImage = typeof postImage.$inferSelect;
export type CommentImage = typeof commentImage.$inferSelect;
export type TagCategory = typeof tagCategory.$inferSelect;
export type NewTagCategory = typeof tagCategory.$inferInsert;
export type BoardTag = typeof boardTag.$inferSelect;
export type NewBoardTag = typeof boardTag.$inferInsert;
