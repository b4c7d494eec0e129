import { BOARD_EDITS_PER_MINUTE, contract, POSTS_PER_MINUTE } from '@nestegg/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { viewerOf, writerOf } from '../kernel/index.js';

/** The per-member limit key of a kind of board write (the guard has run: writes need a session). */
export const memberKey = (kind: string) => (request: FastifyRequest) =>
  `board-${kind}:${request.session?.memberId ?? request.ip}`;

/**
 * Board posts (`/api/board/posts`, `/api/board/my/posts`): list, read, write, edit, delete, notices. Writing
 * and editing are limited per member (Discourse's defaults are in the same range: a new topic every 15
 * seconds); the limits run before the `Idempotency-Key` is claimed, so a refused request stores nothing.
 */
export default async function postsModule(app: FastifyInstance) {
  const { posts } = app.services;
  const { listPosts, createPost, getPost, updatePost, deletePost, setNotice, clearNotice, myPosts } = contract.board;
  const editLimit = app.rateLimit({
    max: BOARD_EDITS_PER_MINUTE,
    timeWindow: '1 minute',
    keyGenerator: memberKey('edit'),
  });
  registerContractRouter(
    app,
    { listPosts, createPost, getPost, updatePost, deletePost, setNotice, clearNotice, myPosts },
    {
      listPosts: async ({ query, request }) => ({ status: 200, body: await posts.list(viewerOf(request), query) }),
      createPost: {
        hooks: {
          onRequest: app.rateLimit({
            max: POSTS_PER_MINUTE,
            timeWindow: '1 minute',
            keyGenerator: memberKey('post'),
          }),
        },
        handler: async ({ body, request }) => ({ status: 201, body: await posts.create(writerOf(request), body) }),
      },
      getPost: async ({ params, request }) => ({ status: 200, body: await posts.get(viewerOf(request), params.id) }),
      updatePost: {
        hooks: { onRequest: editLimit },
        handler: async ({ params, body, request }) => ({
          status: 200,
          body: await posts.update(writerOf(request), params.id, body),
        }),
      },
      deletePost: async ({ params, request }) => {
        await posts.delete(writerOf(request), params.id);
        return { status: 204, body: undefined };
      },
      setNotice: async ({ params }) => {
        await posts.setNotice(params.id, true);
        return { status: 204, body: undefined };
      },
      clearNotice: async ({ params }) => {
        await posts.setNotice(params.id, false);
        return { status: 204, body: undefined };
      },
      myPosts: async ({ query, request }) => ({ status: 200, body: await posts.myPosts(writerOf(request), query) }),
    },
  );
}
