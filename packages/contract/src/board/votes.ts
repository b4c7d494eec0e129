/** Votes on posts and comments, and a post's recommenders. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CursorSchema,
  IdParamSchema,
  meta,
  PageQuerySchema,
  paginated,
  problems,
  routerOptions,
  withCommonProblems,
} from '../common.js';
import { AuthorSchema, VoteDirectionSchema, voteFields } from './shared.js';

const c = initContract();

/** Votes a member may cast per minute (across posts and comments); more → 429 RATE_LIMITED. */
export const VOTES_PER_MINUTE = 30;

export const VoteRequestSchema = z.object({ direction: VoteDirectionSchema });
export type VoteRequest = z.infer<typeof VoteRequestSchema>;
export const VoteResultSchema = z.object(voteFields).describe('Counts after the toggle');
export type VoteResult = z.infer<typeof VoteResultSchema>;

export const RecommenderQuerySchema = PageQuerySchema.extend({
  cursor: CursorSchema.optional().describe('Next page after a previous `nextCursor` (instead of `page`)'),
});
export type RecommenderQuery = z.infer<typeof RecommenderQuerySchema>;

export const RecommenderPageSchema = paginated(AuthorSchema).extend({
  page: z.number().int().min(1).describe('The requested `page` (1 on a page read with `cursor`)'),
  total: z.number().int().min(0).describe('Up votes of the post (its upCount)'),
  nextCursor: CursorSchema.nullable().describe('Pass as `cursor` for the next page; null on the last page'),
});
export type RecommenderPage = z.infer<typeof RecommenderPageSchema>;

const VOTE_RULES =
  'The same direction again removes the vote; the other direction switches it. Your own content → 400 `OWN_CONTENT`; content you cannot read (blocked, for non-admins) → 404. ' +
  `At most ${VOTES_PER_MINUTE} votes a minute per member (429 \`RATE_LIMITED\` with \`Retry-After\`). ` +
  'Points: an up vote gives the author +5 (50 a day) and the voter +1 (10 a day); a down vote costs the author 1; removing an up vote costs the voter 1, and removing or switching any vote gives back to the author what that vote gave or took.';

/** Vote routes. */
export const votesContract = withCommonProblems(
  c.router(
    {
      votePost: {
        method: 'POST',
        path: '/api/board/posts/:id/vote',
        summary: 'Toggle an up or down vote on a post (not your own)',
        description: VOTE_RULES,
        pathParams: IdParamSchema,
        body: VoteRequestSchema,
        responses: { 200: VoteResultSchema, ...problems('RATE_LIMITED', 'OWN_CONTENT') },
        metadata: meta('login'),
      },
      voteComment: {
        method: 'POST',
        path: '/api/board/comments/:id/vote',
        summary: 'Toggle an up or down vote on a comment (not your own)',
        description: VOTE_RULES,
        pathParams: IdParamSchema,
        body: VoteRequestSchema,
        responses: { 200: VoteResultSchema, ...problems('RATE_LIMITED', 'OWN_CONTENT') },
        metadata: meta('login'),
      },
      listRecommenders: {
        method: 'GET',
        path: '/api/board/posts/:id/recommenders',
        summary: 'Members who up-voted a post, most recent first',
        description:
          "Pages by `cursor` (keyset: flat cost at any depth; send the previous page's `nextCursor`, `page` is then ignored) or by `page` (offset, at most 10,000 rows deep: deeper is 400 `OFFSET_TOO_DEEP`). A blocked post is 404 for non-admins.",
        pathParams: IdParamSchema,
        query: RecommenderQuerySchema,
        responses: { 200: RecommenderPageSchema, ...problems('CURSOR_INVALID', 'OFFSET_TOO_DEEP') },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);
