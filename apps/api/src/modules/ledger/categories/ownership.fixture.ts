import { category } from '@nestegg/db';
import { eq, or } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

let made = 0;

/**
 * A member's category with a sub-category: named by `PUT`/`DELETE /api/account/categories/:id` and by
 * the `parentId` of create and update. The snapshot covers the sub-category too (a foreign delete or move
 * must not touch either).
 */
registerOwnedResource({
  name: 'category',
  routes: ['ledger.categories'],
  fields: ['parentId'],
  async make(app, owner) {
    made += 1;
    const parent = await app.services.categories.create(owner.id, { name: `Owned ${made}`, type: 'EXPENSE' });
    await app.services.categories.create(owner.id, { name: `Owned ${made} sub`, type: 'EXPENSE', parentId: parent.id });
    return parent.id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(category)
      .where(or(eq(category.id, Number(id)), eq(category.parentId, Number(id))))
      .orderBy(category.id),
});
