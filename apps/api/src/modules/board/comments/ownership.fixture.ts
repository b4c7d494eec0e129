/**
 * Ownership matrix resource of the comment routes: editing or deleting someone else's visible comment is
 * 403 FORBIDDEN and changes nothing.
 */
import { comment } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';
import { insertComments, insertPost } from '../posts/board.fixture.js';

registerOwnedResource({
  name: 'comment',
  routes: ['board.updateComment', 'board.deleteComment'],
  refusedToOthersWith: 'FORBIDDEN',
  async make(app, owner) {
    const parent = await insertPost(app, owner.id);
    const [created] = await insertComments(app, owner.id, parent.id, [{}]);
    return created!.id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(comment)
      .where(eq(comment.id, Number(id))),
});
