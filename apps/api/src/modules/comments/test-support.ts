/**
 * Ownership matrix resource of the comment routes. Editing or deleting someone else's visible comment is
 * 403 FORBIDDEN (comments.test.ts); the matrix's 404 is checked on a comment of a blocked post, which does
 * not exist for another member, and must stay unchanged.
 */
import { comment } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../test/ownership/registry.js';
import { insertComments, insertPost } from '../posts/board-fixtures.js';

registerOwnedResource({
  name: 'comment of a blocked post',
  routes: ['board.updateComment', 'board.deleteComment'],
  async make(app, owner) {
    const parent = await insertPost(app, owner.id, { blocked: true, blockReason: 'REPORTS' });
    const [created] = await insertComments(app, owner.id, parent.id, [{}]);
    return created!.id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(comment)
      .where(eq(comment.id, Number(id))),
});
