import { tag } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

let made = 0;

/** A member's tag, named by `PUT`/`DELETE /api/account/tags/:id`. */
registerOwnedResource({
  name: 'tag',
  routes: ['ledger.tags'],
  async make(app, owner) {
    made += 1;
    return (await app.services.tags.create(owner.id, `Owned tag ${made}`)).id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(tag)
      .where(eq(tag.id, Number(id))),
});
