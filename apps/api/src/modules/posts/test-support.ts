/**
 * Ownership matrix resources of the post routes. Another member reads a visible post and its comments
 * (200). Editing or deleting someone else's visible post is refused with 403 FORBIDDEN, which the matrix
 * (404 for every write) cannot express; posts.test.ts covers it. So the write routes are checked on a
 * blocked post, which does not exist for another member: 404, and nothing of it changes. Commenting on a
 * visible post is what the route is for; on a blocked one it is 404 too.
 */
import { comment, post } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { registerOwnedResource } from '../../test/ownership/registry.js';
import { insertComments, insertPost } from './board-fixtures.js';

export const postAndComments = async (app: FastifyInstance, id: number | string) => ({
  post: await app.db
    .select()
    .from(post)
    .where(eq(post.id, Number(id))),
  comments: await app.db
    .select()
    .from(comment)
    .where(eq(comment.postId, Number(id))),
});

registerOwnedResource({
  name: 'board post',
  routes: ['board.getPost', 'board.listComments'],
  readableByOthers: true,
  async make(app, owner) {
    const created = await insertPost(app, owner.id, { tags: [] });
    await insertComments(app, owner.id, created.id, [{}]);
    return created.id;
  },
  snapshot: postAndComments,
});

registerOwnedResource({
  name: 'blocked board post (writes)',
  routes: ['board.updatePost', 'board.deletePost', 'board.createComment'],
  async make(app, owner) {
    return (await insertPost(app, owner.id, { blocked: true, blockReason: 'REPORTS' })).id;
  },
  snapshot: postAndComments,
});
