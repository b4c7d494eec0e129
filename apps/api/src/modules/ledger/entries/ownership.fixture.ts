import { accountEntry, entryTag, tag } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

/**
 * A member's pending entry (with a tag): read, changed, deleted and confirmed by id. Pending, so that a
 * foreign confirm that got through would show as a changed row.
 */
registerOwnedResource({
  name: 'entry',
  routes: ['ledger.entries.get', 'ledger.entries.update', 'ledger.entries.delete', 'ledger.entries.confirm'],
  async make(app, owner) {
    const [created] = await app.db
      .insert(accountEntry)
      .values({
        memberId: owner.id,
        type: 'EXPENSE',
        amount: 12_000,
        entryDate: '2024-05-01',
        memo: 'owned',
        pending: true,
      })
      .returning({ id: accountEntry.id });
    const [ownTag] = await app.db
      .insert(tag)
      .values({ memberId: owner.id, name: `owned-${created!.id}` })
      .returning({ id: tag.id });
    await app.db.insert(entryTag).values({ memberId: owner.id, entryId: created!.id, tagId: ownTag!.id });
    return created!.id;
  },
  snapshot: async (app, id) => ({
    entry: await app.db
      .select()
      .from(accountEntry)
      .where(eq(accountEntry.id, Number(id))),
    tags: await app.db
      .select()
      .from(entryTag)
      .where(eq(entryTag.entryId, Number(id))),
  }),
});
