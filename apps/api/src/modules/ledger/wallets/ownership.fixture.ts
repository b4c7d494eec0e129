import { account, walletValueHistory } from '@nestegg/db';
import { asc, eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

/**
 * A member's wallet: its by-id routes (get, update, delete) and every `accountId` field (entries,
 * recurrings, quick entries, notifications) that names one. The snapshot takes the value history too.
 */
registerOwnedResource({
  name: 'wallet',
  routes: ['ledger.wallets'],
  fields: ['accountId'],
  async make(app, owner) {
    const wallet = await app.services.wallets.create(
      { memberId: owner.id, limited: false },
      {
        name: 'Owned savings',
        type: 'SAVINGS',
        accountNumber: '110-222-333',
        manualValuation: true,
        currentValue: 5000,
      },
    );
    return wallet.id;
  },
  snapshot: async (app, id) => ({
    wallet: await app.db
      .select()
      .from(account)
      .where(eq(account.id, Number(id))),
    history: await app.db
      .select()
      .from(walletValueHistory)
      .where(eq(walletValueHistory.accountId, Number(id)))
      .orderBy(asc(walletValueHistory.day)),
  }),
});
