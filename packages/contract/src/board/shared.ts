/** Board area: what every part shares (boards, authors, vote counts, limits). */
import { z } from 'zod';
import { IdSchema } from '../common.js';
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

export const AuthorSchema = z.object({
  id: IdSchema,
  displayName: text(),
  avatarUrl: text().nullable().describe('Custom picture (data URL) or provider one picture; null when none'),
});
export type Author = z.infer<typeof AuthorSchema>;

export const voteFields = {
  upCount: z.number().int().min(0),
  downCount: z.number().int().min(0).describe('Clients blind content with 20 or more down votes'),
  myVote: VoteDirectionSchema.nullable().describe("The caller's vote; null when none or anonymous"),
};
