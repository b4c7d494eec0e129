import { contract, VOTES_PER_MINUTE } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { writerOf } from '../kernel/index.js';

/** Votes on posts and comments, and a post's recommenders (`/api/board/…/vote`, `…/recommenders`). */
export default async function votesModule(app: FastifyInstance): Promise<void> {
  const { votes } = app.services;
  const { votePost, voteComment, listRecommenders } = contract.board;
  // One budget for both vote routes, per member; an app-level hook has resolved the session before this runs.
  const voteLimit = app.rateLimit({
    max: VOTES_PER_MINUTE,
    timeWindow: '1 minute',
    keyGenerator: (request) => `vote:${request.session?.memberId ?? request.ip}`,
  });
  registerContractRouter(
    app,
    { votePost, voteComment, listRecommenders },
    {
      votePost: {
        hooks: { onRequest: voteLimit },
        handler: async ({ params, body, request }) => ({
          status: 200,
          body: await votes.vote(writerOf(request), 'POST', params.id, body.direction),
        }),
      },
      voteComment: {
        hooks: { onRequest: voteLimit },
        handler: async ({ params, body, request }) => ({
          status: 200,
          body: await votes.vote(writerOf(request), 'COMMENT', params.id, body.direction),
        }),
      },
      listRecommenders: async ({ params, query, request }) => ({
        status: 200,
        body: await votes.recommenders(writerOf(request), params.id, query),
      }),
    },
  );
}
