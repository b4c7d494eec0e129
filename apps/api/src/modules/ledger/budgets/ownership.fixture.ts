import { budget, budgetOnetime, category } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { TestMember } from '../../../test/app.js';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

let made = 0;

/** An expense category of the owner, so a budget can name it. */
async function expenseCategoryOf(app: FastifyInstance, owner: TestMember): Promise<string> {
  made += 1;
  const name = `Budgeted ${made}`;
  await app.db.insert(category).values({ memberId: owner.id, name, type: 'EXPENSE' });
  return name;
}

/** A member's monthly budget, named by `PUT`/`DELETE /api/account/budgets/:id`. */
registerOwnedResource({
  name: 'budget',
  routes: ['ledger.budgets.update', 'ledger.budgets.delete'],
  async make(app, owner) {
    const name = await expenseCategoryOf(app, owner);
    return (await app.services.budgets.create(owner.id, { category: name, year: 2026, month: 5, amount: 300_000 })).id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(budget)
      .where(eq(budget.id, Number(id))),
});

/** A member's one-time budget, named by `PUT`/`DELETE /api/account/budgets/onetime/:id`. */
registerOwnedResource({
  name: 'one-time budget',
  routes: ['ledger.budgets.updateOnetime', 'ledger.budgets.deleteOnetime'],
  async make(app, owner) {
    const name = await expenseCategoryOf(app, owner);
    const created = await app.services.budgets.createOnetime(owner.id, {
      name: 'Trip',
      amount: 1_000_000,
      startDate: '2026-07-01',
      endDate: '2026-07-10',
      category: name,
    });
    return created.id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(budgetOnetime)
      .where(eq(budgetOnetime.id, Number(id))),
});
