import { quickEntry } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

/** A member's quick-entry template: changed and deleted by id. */
registerOwnedResource({
  name: 'quick entry',
  routes: ['ledger.quickEntries.update', 'ledger.quickEntries.delete'],
  async make(app, owner) {
    const [created] = await app.db
      .insert(quickEntry)
      .values({ memberId: owner.id, name: 'Lunch', amount: 9_000, memo: 'owned' })
      .returning({ id: quickEntry.id });
    return created!.id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(quickEntry)
      .where(eq(quickEntry.id, Number(id))),
});
