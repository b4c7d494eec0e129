/** Board area: what every part shares (boards, authors, vote counts, limits). */
import { z } from 'zod';
import { CursorSchema, IdSchema, MAX_OFFSET_ROWS, PageQuerySchema } from '../common.js';
import { text } from '../text.js';

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
/** A post or comment is hot when created within `HOT_WINDOW_HOURS` with at least this many up votes. */
export const HOT_MIN_UP_VOTES = 50;
export const HOT_WINDOW_HOURS = 24;
/** Hot posts shown above a list (the same on every page). */
export const HOT_POSTS_MAX = 3;
/** What `blockReason` says when the spam filter blocked a post or comment (the report block says `REPORTS`). */
export const SPAM_BLOCK_REASON = 'SPAM';

export const AuthorSchema = z.object({
  id: IdSchema,
  displayName: text(),
  avatarUrl: text()
    .nullable()
    .describe(
      "Absolute URL of the avatar: the member's own picture under the public address (`…/api/auth/avatars/{key}`, " +
        'cached for a year: the key changes with the picture), else the identity provider one picture; null when none',
    ),
});
export type Author = z.infer<typeof AuthorSchema>;

export const voteFields = {
  upCount: z.number().int().min(0),
  downCount: z.number().int().min(0).describe('Clients blind content with 20 or more down votes'),
  myVote: VoteDirectionSchema.nullable().describe("The caller's vote; null when none or anonymous"),
};

/** Edits of posts and comments together a member may make per minute; more → 429 RATE_LIMITED. */
export const BOARD_EDITS_PER_MINUTE = 30;

/** How the board's lists page (posts, comments, my posts and comments). */
export const BOARD_PAGING =
  "Pages by `cursor` (keyset: flat cost at any depth; send the previous page's `nextCursor`, `page` is then " +
  `ignored) or by \`page\` (offset, at most ${MAX_OFFSET_ROWS.toLocaleString('en')} rows deep: deeper is 400 ` +
  '`OFFSET_TOO_DEEP`). Every page carries `nextCursor`.';

/** The board's page fields beside `items`: a keyset cursor next to the page number. */
export const boardPageFields = {
  page: z.number().int().min(1).describe('The requested `page` (1 on a page read with `cursor`)'),
  nextCursor: CursorSchema.nullable().describe('Pass as `cursor` for the next page; null on the last page'),
};
/** `cursor` next to `page` and `size`. */
export const BoardPageQuerySchema = PageQuerySchema.extend({
  cursor: CursorSchema.optional().describe('Next page after a previous `nextCursor` (instead of `page`)'),
});
export type BoardPageQuery = z.infer<typeof BoardPageQuerySchema>;
