/** Reports, automatic blocking and the admin's report list. */
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
import { AuthorSchema, BoardCategorySchema, REPORT_REASON_MAX, ReportTargetTypeSchema } from './shared.js';

const c = initContract();

export const ReportRequestSchema = z.object({
  reason: text().trim().min(1).max(REPORT_REASON_MAX),
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

/** Report routes. */
export const moderationContract = c.router(
  {
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
