/** Reports, automatic blocking, the admin's report list and the report history. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CoercedIdSchema,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  meta,
  PageQuerySchema,
  paginated,
  problems,
  routerOptions,
  withCommonProblems,
} from '../common.js';
import { nonBlankText, text } from '../text.js';
import { AuthorSchema, BoardCategorySchema, REPORT_REASON_MAX, ReportTargetTypeSchema } from './shared.js';

const c = initContract();

/** Counted reports that block a post or comment. */
export const REPORTS_TO_BLOCK = 5;
/**
 * A report counts toward the block only when the reporter's account is at least this old: the default of the
 * api's `BOARD_REPORTER_MIN_AGE_DAYS` (0 there: every report counts).
 */
export const REPORT_COUNTING_MIN_ACCOUNT_AGE_DAYS = 7;
/** What `blockReason` says when counted reports blocked a post or comment (the spam filter says `SPAM`). */
export const REPORTS_BLOCK_REASON = 'REPORTS';
/** Reports a member may send per hour; more → 429 RATE_LIMITED. */
export const REPORTS_PER_HOUR = 10;

export const ReportRequestSchema = z.object({
  reason: nonBlankText().max(REPORT_REASON_MAX),
});
export type ReportRequest = z.infer<typeof ReportRequestSchema>;

export const ReportedItemSchema = z.object({
  targetType: ReportTargetTypeSchema,
  targetId: IdSchema,
  postId: IdSchema.describe('The post itself, or the post a comment belongs to'),
  postCategory: BoardCategorySchema,
  title: text().describe('Post title (for a comment: the title of its post)'),
  excerpt: text().describe('First 200 characters of the body'),
  author: AuthorSchema,
  reportCount: z.number().int().min(0).describe('Open reports; 0 for an item blocked by the spam filter only'),
  countedReportCount: z
    .number()
    .int()
    .min(0)
    .describe(
      `Open reports that count toward the block (reporters' accounts old enough: ${REPORT_COUNTING_MIN_ACCOUNT_AGE_DAYS} days or older by default)`,
    ),
  reasons: z.array(text()).describe('Latest open report reasons, newest first (at most 10)'),
  blocked: z.boolean(),
  blockReason: text().nullable().describe('`REPORTS` for the automatic block; the spam filter sets its own'),
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

export const ModerationActionSchema = z.enum(['BLOCKED', 'DISMISSED', 'CONTENT_DELETED']);
export type ModerationAction = z.infer<typeof ModerationActionSchema>;

export const ModerationEventSchema = z.object({
  action: ModerationActionSchema,
  actor: AuthorSchema.nullable().describe('Who acted; null for the automatic block or a withdrawn member'),
  reason: text().nullable().describe('Why a block happened (`REPORTS`)'),
  at: InstantSchema,
});
export type ModerationEvent = z.infer<typeof ModerationEventSchema>;

export const ReportRecordSchema = z.object({
  id: IdSchema,
  reporter: AuthorSchema,
  reason: text().nullable(),
  counted: z.boolean().describe("false when the reporter's account was too new for the report to count"),
  reportedAt: InstantSchema,
  title: text().nullable().describe('The post title when reported (null for a comment)'),
  body: text().nullable().describe('The body when reported'),
  resolution: ModerationEventSchema.nullable().describe('The dismissal or deletion that closed it; null while open'),
});
export type ReportRecord = z.infer<typeof ReportRecordSchema>;

export const ReportHistoryQuerySchema = PageQuerySchema.extend({
  targetType: ReportTargetTypeSchema,
  targetId: CoercedIdSchema,
});
export type ReportHistoryQuery = z.infer<typeof ReportHistoryQuerySchema>;

export const ReportHistorySchema = paginated(ReportRecordSchema).extend({
  events: z.array(ModerationEventSchema).describe('Blocks, dismissals and deletion of the target, newest first'),
});
export type ReportHistory = z.infer<typeof ReportHistorySchema>;

const REPORT_RULES =
  `Once per member per target, ever (again → 409 \`ALREADY_REPORTED\`, also after a dismissal); your own content → 400 \`OWN_CONTENT\`; content you cannot read → 404. At ${REPORTS_TO_BLOCK} counted open reports the target is blocked (\`blockReason\` \`REPORTS\`); reports from accounts younger than the configured age (${REPORT_COUNTING_MIN_ACCOUNT_AGE_DAYS} days by default) are kept but do not count. ` +
  `At most ${REPORTS_PER_HOUR} reports an hour per member (429 \`RATE_LIMITED\` with \`Retry-After\`).`;

/** Report routes. */
export const moderationContract = withCommonProblems(
  c.router(
    {
      reportPost: {
        method: 'POST',
        path: '/api/board/posts/:id/report',
        summary: 'Report a post once (blocked at 5 reports)',
        description: REPORT_RULES,
        pathParams: IdParamSchema,
        body: ReportRequestSchema,
        responses: { 204: c.noBody(), ...problems('RATE_LIMITED', 'OWN_CONTENT', 'ALREADY_REPORTED') },
        metadata: meta('login'),
      },
      reportComment: {
        method: 'POST',
        path: '/api/board/comments/:id/report',
        summary: 'Report a comment once (blocked at 5 reports)',
        description: REPORT_RULES,
        pathParams: IdParamSchema,
        body: ReportRequestSchema,
        responses: { 204: c.noBody(), ...problems('RATE_LIMITED', 'OWN_CONTENT', 'ALREADY_REPORTED') },
        metadata: meta('login'),
      },
      listReports: {
        method: 'GET',
        path: '/api/board/reports',
        summary: 'Reported and spam-blocked posts and comments, most reported first',
        description:
          'Posts and comments together with open reports or blocked, by open report count (then newest). Offset pages at most 10,000 rows deep (deeper: 400 `OFFSET_TOO_DEEP`).',
        query: PageQuerySchema,
        responses: { 200: ReportedItemPageSchema, ...problems('OFFSET_TOO_DEEP') },
        metadata: meta('admin'),
      },
      dismissReports: {
        method: 'POST',
        path: '/api/board/reports/dismiss',
        summary: 'Clear the reports of a target and show it again (also for spam-blocked items)',
        description:
          'Closes the open reports (they stay in the history; their reporters cannot report the target again) and unblocks the target.',
        body: DismissReportRequestSchema,
        responses: { 204: c.noBody(), ...problems('NOT_FOUND') },
        metadata: meta('admin'),
      },
      reportHistory: {
        method: 'GET',
        path: '/api/board/reports/history',
        summary: 'Every report of a target, open and closed, with the content as reported',
        description:
          "Newest first, with the blocks, dismissals and deletion of the target. Kept after the content is edited, dismissed or deleted; a member's withdrawal removes their reports and the reports on their content.",
        query: ReportHistoryQuerySchema,
        responses: { 200: ReportHistorySchema, ...problems('OFFSET_TOO_DEEP') },
        metadata: meta('admin'),
      },
    },
    routerOptions,
  ),
);
