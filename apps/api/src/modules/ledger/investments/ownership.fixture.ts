import { investmentHolding, investmentTrade, stockQuote } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

let made = 0;

/** A member's holding with a buy: read, changed and deleted by id, referenced by `holdingId` in trades. */
registerOwnedResource({
  name: 'holding',
  routes: ['ledger.investments.getHolding', 'ledger.investments.updateHolding', 'ledger.investments.deleteHolding'],
  fields: ['holdingId'],
  async make(app, owner) {
    made += 1;
    const holding = await app.services.holdings.create(owner.id, { name: `Owned holding ${made}`, stockCode: 'OWND' });
    await app.services.trades.create(owner.id, {
      holdingId: holding.id,
      side: 'BUY',
      quantity: '2',
      price: '1000',
      fee: '0',
      tradedAt: '2026-01-02',
    });
    return holding.id;
  },
  snapshot: async (app, id) => ({
    holding: await app.db
      .select()
      .from(investmentHolding)
      .where(eq(investmentHolding.id, Number(id))),
    trades: await app.db
      .select()
      .from(investmentTrade)
      .where(eq(investmentTrade.holdingId, Number(id))),
  }),
});

/** A member's trade (a buy of its own holding): changed and deleted by id. */
registerOwnedResource({
  name: 'trade',
  routes: ['ledger.investments.updateTrade', 'ledger.investments.deleteTrade'],
  async make(app, owner) {
    const holding = await app.services.holdings.create(owner.id, { name: 'Trade owner' });
    const trade = await app.services.trades.create(owner.id, {
      holdingId: holding.id,
      side: 'BUY',
      quantity: '1.5',
      price: '2000',
      fee: '10',
      tradedAt: '2026-01-03',
    });
    return trade.id;
  },
  snapshot: async (app, id) => {
    const [trade] = await app.db
      .select()
      .from(investmentTrade)
      .where(eq(investmentTrade.id, Number(id)));
    const holding = await app.db
      .select()
      .from(investmentHolding)
      .where(eq(investmentHolding.id, trade?.holdingId ?? 0));
    return { trade, holding };
  },
});

/**
 * A quote in the shared cache: not member-owned, so any premium member reads it (200) and none changes it.
 * Fresh, so the lookup answers from the cache without a provider.
 */
registerOwnedResource({
  name: 'stock quote',
  routes: ['ledger.investments.quote'],
  readableByOthers: true,
  async make(app) {
    made += 1;
    const code = `SHARED${made}`;
    const now = new Date();
    await app.db.insert(stockQuote).values({ code, price: '123.45', fetchedAt: now, attemptedAt: now });
    return code;
  },
  snapshot: async (app, code) =>
    app.db
      .select()
      .from(stockQuote)
      .where(eq(stockQuote.code, String(code))),
});
