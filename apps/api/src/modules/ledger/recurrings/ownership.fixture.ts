import { accountEntry, recurring } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

/** A member's recurring transaction, named by id through `PUT` and `DELETE /api/account/recurrings/:id`. */
registerOwnedResource({
  name: 'recurring',
  routes: ['ledger.recurrings.update', 'ledger.recurrings.delete'],
  async make(app, owner) {
    const [row] = await app.db
      .insert(recurring)
      .values({
        memberId: owner.id,
        name: 'Rent',
        type: 'EXPENSE',
        amount: 500_000,
        frequency: 'MONTHLY',
        dayOfMonth: 25,
        startDate: '2026-01-01',
      })
      .returning({ id: recurring.id });
    return row!.id;
  },
  snapshot: async (app, id) => ({
    recurring: await app.db
      .select()
      .from(recurring)
      .where(eq(recurring.id, Number(id))),
    entries: await app.db
      .select({ id: accountEntry.id })
      .from(accountEntry)
      .where(eq(accountEntry.recurringId, Number(id))),
  }),
});
