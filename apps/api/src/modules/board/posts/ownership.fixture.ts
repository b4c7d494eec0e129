/**
 * Ownership matrix resources of the post routes. Another member reads a visible post and its comments
 * (200); editing or deleting someone else's visible post is 403 FORBIDDEN and changes nothing. Commenting
 * on a visible post is what the route is for; on a blocked one it is 404 for everyone but admins, its
 * author included (BD23).
 */
import { comment, post } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { registerOwnedResource } from '../../../test/ownership/registry.js';
import { insertComments, insertPost } from './board.fixture.js';

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
  name: 'board post (writes)',
  routes: ['board.updatePost', 'board.deletePost'],
  refusedToOthersWith: 'FORBIDDEN',
  async make(app, owner) {
    return (await insertPost(app, owner.id, { tags: [] })).id;
  },
  snapshot: postAndComments,
});

registerOwnedResource({
  name: 'blocked board post (comments)',
  routes: ['board.createComment'],
  hiddenFromOwner: true,
  async make(app, owner) {
    return (await insertPost(app, owner.id, { blocked: true, blockReason: 'REPORTS' })).id;
  },
  snapshot: postAndComments,
});
