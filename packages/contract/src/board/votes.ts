/** Votes on posts and comments, and a post's recommenders. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses, IdParamSchema, meta, PageQuerySchema, paginated, routerOptions } from '../common.js';
import { AuthorSchema, VoteDirectionSchema, voteFields } from './shared.js';

const c = initContract();

export const VoteRequestSchema = z.object({ direction: VoteDirectionSchema });
export type VoteRequest = z.infer<typeof VoteRequestSchema>;
export const VoteResultSchema = z.object(voteFields).describe('Counts after the toggle');
export type VoteResult = z.infer<typeof VoteResultSchema>;

export const RecommenderPageSchema = paginated(AuthorSchema);
export type RecommenderPage = z.infer<typeof RecommenderPageSchema>;

/** Vote routes. */
export const votesContract = c.router(
  {
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
  },
  routerOptions,
);
