import { BOARD_EDITS_PER_MINUTE, COMMENTS_PER_MINUTE, contract } from '@nestegg/contract';
import type { FastifyInstance } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { viewerOf, writerOf } from '../kernel/index.js';
import { memberKey } from '../posts/index.js';

/**
 * Comments (`/api/board/posts/:id/comments`, `/api/board/comments/:id`, `/api/board/my/comments`). Writing
 * and editing are limited per member; edits share one count with post edits.
 */
export default async function commentsModule(app: FastifyInstance) {
  const { comments } = app.services;
  const { listComments, createComment, updateComment, deleteComment, myComments } = contract.board;
  registerContractRouter(
    app,
    { listComments, createComment, updateComment, deleteComment, myComments },
    {
      listComments: async ({ params, query, request }) => ({
        status: 200,
        body: await comments.list(viewerOf(request), params.id, query),
      }),
      createComment: {
        hooks: {
          onRequest: app.rateLimit({
            max: COMMENTS_PER_MINUTE,
            timeWindow: '1 minute',
            keyGenerator: memberKey('comment'),
          }),
        },
        handler: async ({ params, body, request }) => ({
          status: 201,
          body: await comments.create(writerOf(request), params.id, body.body),
        }),
      },
      updateComment: {
        hooks: {
          onRequest: app.rateLimit({
            max: BOARD_EDITS_PER_MINUTE,
            timeWindow: '1 minute',
            keyGenerator: memberKey('edit'),
          }),
        },
        handler: async ({ params, body, request }) => ({
          status: 200,
          body: await comments.update(writerOf(request), params.id, body.body),
        }),
      },
      deleteComment: async ({ params, request }) => {
        await comments.delete(writerOf(request), params.id);
        return { status: 204, body: undefined };
      },
      myComments: async ({ query, request }) => ({
        status: 200,
        body: await comments.myComments(writerOf(request), query),
      }),
    },
  );
}
