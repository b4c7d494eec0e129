import type { CreateTradeRequest } from '@nestegg/contract';
import { investmentHolding, stockQuote } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

type TradeInput = Omit<CreateTradeRequest, 'holdingId' | 'fee'> & { fee?: string };

async function holdingOf(caller: Caller, fields: { name?: string; stockCode?: string; currency?: string } = {}) {
  return bodyOf(await caller.api.ledger.investments.createHolding({ body: { name: 'Samsung', ...fields } }), 201).id;
}

async function trade(caller: Caller, holdingId: number, values: TradeInput) {
  return caller.api.ledger.investments.createTrade({ body: { holdingId, ...values } });
}

const buy = (quantity: string, price: string, tradedAt: string, fee = '0'): TradeInput => ({
  side: 'BUY',
  quantity,
  price,
  fee,
  tradedAt,
});
const sell = (quantity: string, price: string, tradedAt: string, fee = '0'): TradeInput => ({
  side: 'SELL',
  quantity,
  price,
  fee,
  tradedAt,
});

async function storedHolding(app: FastifyInstance, id: number) {
  const [row] = await app.db.select().from(investmentHolding).where(eq(investmentHolding.id, id));
  return row!;
}

/** A quote in the shared cache, fresh, so no provider is asked (this file runs without one). */
async function cachedQuote(app: FastifyInstance, code: string, price: string) {
  const now = new Date();
  await app.db
    .insert(stockQuote)
    .values({ code, price, fetchedAt: now, attemptedAt: now })
    .onConflictDoUpdate({ target: stockQuote.code, set: { price, fetchedAt: now, attemptedAt: now } });
  return now;
}

describe('investments: moving average, realized and valuation profit', () => {
  test('a hand-computed sequence: average price with buying fees, realized profit on a sell, valuation from the quote', async ({
    app,
    premium,
  }) => {
    const id = await holdingOf(premium, { stockCode: '005930.ks' });
    // Buy 10 @ 1,000 + 100 → cost 10,100; buy 5 @ 1,300 + 50 → 16,650 for 15 (average 1,110);
    // sell 6 @ 1,500 − 90: takes out 16,650 × 6/15 = 6,660, realizes 9,000 − 90 − 6,660 = 2,250.
    bodyOf(await trade(premium, id, buy('10', '1000', '2026-01-02', '100')), 201);
    bodyOf(await trade(premium, id, { ...buy('5', '1300', '2026-01-05'), fee: '50' }), 201);
    const sale = bodyOf(await trade(premium, id, sell('6', '1500', '2026-01-09', '90')), 201);
    expect(sale).toMatchObject({ holdingId: id, side: 'SELL', quantity: '6', price: '1500', fee: '90' });

    const holding = bodyOf(await premium.api.ledger.investments.getHolding({ params: { id } }), 200);
    expect(holding).toMatchObject({
      stockCode: '005930.KS',
      currency: null,
      quantity: '9',
      averagePrice: '1110',
      purchaseAmount: '9990',
      realizedProfit: '2250',
      currentPrice: null,
      priceUpdatedAt: null,
    });

    const fetchedAt = await cachedQuote(app, '005930.KS', '1200');
    const portfolio = bodyOf(await premium.api.ledger.investments.portfolio(), 200);
    expect(portfolio.holdings).toEqual([
      {
        holdingId: id,
        name: 'Samsung',
        stockCode: '005930.KS',
        currency: null,
        quantity: '9',
        averagePrice: '1110',
        currentPrice: '1200',
        purchaseAmount: '9990',
        valuation: '10800',
        valuationProfit: '810',
        realizedProfit: '2250',
        priceUpdatedAt: fetchedAt.toISOString(),
      },
    ]);
    expect(portfolio.totals).toEqual({
      purchaseAmount: '9990',
      valuation: '10800',
      valuationProfit: '810',
      realizedProfit: '2250',
    });
    expect(portfolio.foreignTotals).toEqual([]);
  });

  test('a sell leaves the average unchanged; selling everything realizes the whole cost basis', async ({ premium }) => {
    const id = await holdingOf(premium);
    await trade(premium, id, buy('3', '1000', '2026-02-01'));
    await trade(premium, id, buy('1', '2000', '2026-02-02'));
    await trade(premium, id, sell('1', '1250', '2026-02-03'));
    let holding = bodyOf(await premium.api.ledger.investments.getHolding({ params: { id } }), 200);
    expect(holding).toMatchObject({ quantity: '3', averagePrice: '1250', purchaseAmount: '3750', realizedProfit: '0' });
    await trade(premium, id, sell('3', '1000', '2026-02-04'));
    holding = bodyOf(await premium.api.ledger.investments.getHolding({ params: { id } }), 200);
    expect(holding).toMatchObject({ quantity: '0', averagePrice: '0', purchaseAmount: '0', realizedProfit: '-750' });
  });

  test('a foreign holding keeps exact decimal prices and is valued in its own currency', async ({ app, premium }) => {
    const local = await holdingOf(premium, { name: 'Local', stockCode: 'LOCL' });
    await trade(premium, local, buy('2', '5000', '2026-03-01'));
    const id = await holdingOf(premium, { name: 'Apple', stockCode: 'AAPL', currency: 'USD' });
    await trade(premium, id, buy('1.5', '187.23', '2026-03-02', '0.99'));
    await trade(premium, id, buy('0.25', '190.1', '2026-03-03'));
    await trade(premium, id, sell('0.75', '200.5', '2026-03-04', '0.5'));
    // cost 1.5 × 187.23 + 0.99 + 0.25 × 190.1 = 329.3600; average 329.36 / 1.75 = 188.2057…
    // the sell takes out 329.36 × 0.75 / 1.75 = 141.15428…, realizing 150.375 − 0.5 − 141.15428… = 8.72071….
    await cachedQuote(app, 'AAPL', '190.5');
    const portfolio = bodyOf(await premium.api.ledger.investments.portfolio(), 200);
    const apple = portfolio.holdings.find((h) => h.holdingId === id);
    expect(apple).toMatchObject({
      currency: 'USD',
      quantity: '1',
      averagePrice: '188.2057',
      purchaseAmount: '188.2057',
      currentPrice: '190.5',
      valuation: '190.5',
      valuationProfit: '2.2943',
      realizedProfit: '8.7207',
    });
    expect(portfolio.totals).toEqual({
      purchaseAmount: '10000',
      valuation: '10000',
      valuationProfit: '0',
      realizedProfit: '0',
    });
    expect(portfolio.foreignTotals).toEqual([
      {
        currency: 'USD',
        purchaseAmount: '188.2057',
        valuation: '190.5',
        valuationProfit: '2.2943',
        realizedProfit: '8.7207',
      },
    ]);
  });

  test('a local-currency holding takes whole prices only; a whole number or a decimal string are both accepted', async ({
    premium,
  }) => {
    const id = await holdingOf(premium);
    const refused = problemOf(await trade(premium, id, buy('1', '1000.5', '2026-01-01')), 400, 'VALIDATION_FAILED');
    expect(refused.errors).toEqual([{ path: 'body.price', message: expect.any(String) }]);
    const created = bodyOf(
      await premium.api.ledger.investments.createTrade({
        body: { holdingId: id, side: 'BUY', quantity: 2, price: 71_500, tradedAt: '2026-01-01' },
      }),
      201,
    );
    expect(created).toMatchObject({ quantity: '2', price: '71500', fee: '0' });
    problemOf(
      await premium.api.ledger.investments.createTrade({
        body: { holdingId: id, side: 'BUY', quantity: '0.1234567', price: '1', tradedAt: '2026-01-01' },
      }),
      400,
      'VALIDATION_FAILED',
    );

    const usd = await holdingOf(premium, { name: 'Fund', currency: 'USD' });
    await trade(premium, usd, buy('1', '10.25', '2026-01-01'));
    const demoted = await premium.api.ledger.investments.updateHolding({
      params: { id: usd },
      body: { currency: null },
    });
    expect(problemOf(demoted, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('body.currency');
  });
});

describe('investments: the local currency named explicitly (decision L39)', () => {
  test("a holding created or changed to 'KRW' is a local holding: whole prices, in the local totals", async ({
    premium,
  }) => {
    const named = await holdingOf(premium, { name: 'KODEX 200', currency: 'KRW' });
    expect(bodyOf(await premium.api.ledger.investments.getHolding({ params: { id: named } }), 200).currency).toBeNull();
    problemOf(await trade(premium, named, buy('1', '1000.5', '2026-01-01')), 400, 'VALIDATION_FAILED');
    bodyOf(await trade(premium, named, buy('2', '1000', '2026-01-01')), 201);

    const usd = await holdingOf(premium, { name: 'Fund', currency: 'USD' });
    await trade(premium, usd, buy('1', '10', '2026-01-01'));
    const changed = await premium.api.ledger.investments.updateHolding({
      params: { id: usd },
      body: { currency: 'KRW' },
    });
    expect(bodyOf(changed, 200).currency).toBeNull();

    const portfolio = bodyOf(await premium.api.ledger.investments.portfolio(), 200);
    expect(portfolio.foreignTotals).toEqual([]);
    expect(portfolio.totals.purchaseAmount).toBe('2010');
  });
});

describe('investments: a replay that goes negative is refused (409)', () => {
  test('creating a sell beyond what is held at its date', async ({ app, premium }) => {
    const id = await holdingOf(premium);
    await trade(premium, id, buy('5', '1000', '2026-01-10'));
    problemOf(await trade(premium, id, sell('6', '1000', '2026-01-11')), 409, 'HOLDING_QUANTITY_NEGATIVE');
    // Enough in total, but not yet on that day.
    await trade(premium, id, buy('5', '1000', '2026-01-20'));
    problemOf(await trade(premium, id, sell('6', '1000', '2026-01-15')), 409, 'HOLDING_QUANTITY_NEGATIVE');
    expect((await storedHolding(app, id)).quantity).toBe('10.000000');
    bodyOf(await trade(premium, id, sell('10', '1000', '2026-01-20')), 201);
  });

  test('editing an earlier buy down, moving a sell before its buy, and deleting the buy', async ({ app, premium }) => {
    const id = await holdingOf(premium);
    const purchase = bodyOf(await trade(premium, id, buy('10', '1000', '2026-01-02')), 201);
    const sale = bodyOf(await trade(premium, id, sell('8', '1200', '2026-01-05')), 201);
    const before = await storedHolding(app, id);
    const { updateTrade, deleteTrade } = premium.api.ledger.investments;

    problemOf(
      await updateTrade({ params: { id: purchase.id }, body: { quantity: '7' } }),
      409,
      'HOLDING_QUANTITY_NEGATIVE',
    );
    problemOf(
      await updateTrade({ params: { id: sale.id }, body: { tradedAt: '2026-01-01' } }),
      409,
      'HOLDING_QUANTITY_NEGATIVE',
    );
    problemOf(
      await updateTrade({ params: { id: purchase.id }, body: { side: 'SELL' } }),
      409,
      'HOLDING_QUANTITY_NEGATIVE',
    );
    problemOf(await deleteTrade({ params: { id: purchase.id } }), 409, 'HOLDING_QUANTITY_NEGATIVE');
    expect(await storedHolding(app, id)).toEqual(before);

    const edited = bodyOf(
      await updateTrade({ params: { id: purchase.id }, body: { quantity: '8', price: '900' } }),
      200,
    );
    expect(edited).toMatchObject({ quantity: '8', price: '900', side: 'BUY', tradedAt: '2026-01-02' });
    expect(await storedHolding(app, id)).toMatchObject({ quantity: '0.000000', realizedProfit: '2400.0000000000' });
    bodyOf(await deleteTrade({ params: { id: sale.id } }), 204);
    expect(await storedHolding(app, id)).toMatchObject({ quantity: '8.000000', costBasis: '7200.0000000000' });
  });

  test('moving a trade to another holding checks both holdings', async ({ app, premium }) => {
    const first = await holdingOf(premium, { name: 'First' });
    const second = await holdingOf(premium, { name: 'Second' });
    const purchase = bodyOf(await trade(premium, first, buy('4', '100', '2026-01-02')), 201);
    const sale = bodyOf(await trade(premium, first, sell('3', '100', '2026-01-03')), 201);
    const { updateTrade } = premium.api.ledger.investments;
    // The buy leaving First strands its sell; the sell arriving in Second has nothing to sell.
    problemOf(
      await updateTrade({ params: { id: purchase.id }, body: { holdingId: second } }),
      409,
      'HOLDING_QUANTITY_NEGATIVE',
    );
    problemOf(
      await updateTrade({ params: { id: sale.id }, body: { holdingId: second } }),
      409,
      'HOLDING_QUANTITY_NEGATIVE',
    );

    await trade(premium, second, buy('5', '100', '2026-01-01'));
    bodyOf(await updateTrade({ params: { id: sale.id }, body: { holdingId: second } }), 200);
    expect((await storedHolding(app, first)).quantity).toBe('4.000000');
    expect((await storedHolding(app, second)).quantity).toBe('2.000000');
  });

  test('parallel sells that together exceed the quantity: exactly the ones that fit pass', async ({ app, premium }) => {
    const id = await holdingOf(premium);
    await trade(premium, id, buy('10', '1000', '2026-01-02'));
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => trade(premium, id, sell('3', '1100', '2026-01-03'))),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      problemOf(refused, 409, 'HOLDING_QUANTITY_NEGATIVE');
    }
    expect((await storedHolding(app, id)).quantity).toBe('1.000000');
  });

  test('parallel edits of two trades of one holding cannot both pass the check', async ({ app, premium }) => {
    const id = await holdingOf(premium);
    const purchases = [
      bodyOf(await trade(premium, id, buy('5', '100', '2026-01-01')), 201),
      bodyOf(await trade(premium, id, buy('5', '100', '2026-01-02')), 201),
    ];
    await trade(premium, id, sell('6', '100', '2026-01-03'));
    // Each edit alone leaves 6 held before the sell (fine); both together leave 2.
    const answers = await Promise.all(
      purchases.map((purchase) =>
        premium.api.ledger.investments.updateTrade({ params: { id: purchase.id }, body: { quantity: '1' } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect((await storedHolding(app, id)).quantity).toBe('0.000000');
  });
});

describe('investments: holdings and trades', () => {
  test('holding CRUD; deleting a holding deletes its trades', async ({ premium }) => {
    const { createHolding, updateHolding, listHoldings, deleteHolding, listTrades } = premium.api.ledger.investments;
    const created = bodyOf(await createHolding({ body: { name: ' KODEX 200 ', stockCode: '069500.ks' } }), 201);
    expect(created).toMatchObject({ name: 'KODEX 200', stockCode: '069500.KS', currency: null, quantity: '0' });
    const renamed = bodyOf(await updateHolding({ params: { id: created.id }, body: { name: 'KODEX' } }), 200);
    expect(renamed).toMatchObject({ name: 'KODEX', stockCode: '069500.KS' });
    await trade(premium, created.id, buy('1', '30000', '2026-01-01'));
    expect(bodyOf(await listHoldings(), 200).items.map((h) => h.name)).toEqual(['KODEX']);
    bodyOf(await deleteHolding({ params: { id: created.id } }), 204);
    expect(bodyOf(await listHoldings(), 200).items).toEqual([]);
    expect(bodyOf(await listTrades({ query: {} }), 200).total).toBe(0);
    problemOf(await premium.api.ledger.investments.getHolding({ params: { id: created.id } }), 404, 'NOT_FOUND');
  });

  test('trades are listed newest first, by holding and date range; another member sees none of them', async ({
    premium,
    admin,
  }) => {
    const first = await holdingOf(premium, { name: 'First' });
    const second = await holdingOf(premium, { name: 'Second' });
    await trade(premium, first, buy('1', '100', '2026-01-01'));
    await trade(premium, second, buy('1', '100', '2026-01-03'));
    await trade(premium, first, buy('1', '100', '2026-01-02'));
    const all = bodyOf(await premium.api.ledger.investments.listTrades({ query: {} }), 200);
    expect(all.items.map((t) => t.tradedAt)).toEqual(['2026-01-03', '2026-01-02', '2026-01-01']);
    expect(all.total).toBe(3);
    const ofFirst = bodyOf(
      await premium.api.ledger.investments.listTrades({ query: { holdingId: first, size: 1 } }),
      200,
    );
    expect(ofFirst).toMatchObject({ total: 2, size: 1, items: [{ tradedAt: '2026-01-02' }] });
    const ranged = bodyOf(
      await premium.api.ledger.investments.listTrades({ query: { from: '2026-01-02', to: '2026-01-02' } }),
      200,
    );
    expect(ranged.items.map((t) => t.tradedAt)).toEqual(['2026-01-02']);
    problemOf(await admin.api.ledger.investments.listTrades({ query: { holdingId: first } }), 404, 'NOT_FOUND');
    expect(bodyOf(await admin.api.ledger.investments.listTrades({ query: {} }), 200).total).toBe(0);
  });

  test('every investment route is premium', async ({ free }) => {
    problemOf(await free.api.ledger.investments.portfolio(), 403, 'PREMIUM_REQUIRED');
    problemOf(await free.api.ledger.investments.listHoldings(), 403, 'PREMIUM_REQUIRED');
  });

  test('without a quote provider, a quote is served from the cache or answers 503', async ({ app, premium }) => {
    await cachedQuote(app, 'CACHED', '12.5');
    const quote = bodyOf(await premium.api.ledger.investments.quote({ params: { code: 'cached' } }), 200);
    expect(quote).toMatchObject({ stockCode: 'CACHED', price: '12.5', name: null, currency: null });
    problemOf(
      await premium.api.ledger.investments.quote({ params: { code: 'NEVER' } }),
      503,
      'PROVIDER_NOT_CONFIGURED',
    );
  });
});
