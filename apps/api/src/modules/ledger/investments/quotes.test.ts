import { type RecordedRequest, startFakeServer } from '@nestegg/testing';
import { afterAll, beforeEach, describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';

/** The fake Alpha Vantage: prices by symbol; `mode` makes it fail or hang. */
const market = {
  prices: new Map<string, string>(),
  mode: 'up' as 'up' | 'down' | 'limited' | 'slow',
};

function globalQuote(request: RecordedRequest) {
  if (request.query.get('function') !== 'GLOBAL_QUOTE' || request.query.get('apikey') !== 'quote-key') {
    return { body: { 'Error Message': 'Invalid API call.' } };
  }
  const symbol = request.query.get('symbol') ?? '';
  const price = market.prices.get(symbol);
  return {
    body: {
      'Global Quote': price ? { '01. symbol': symbol, '05. price': price, '07. latest trading day': '2026-05-01' } : {},
    },
  };
}

const provider = await startFakeServer({
  'GET /query': async (request) => {
    if (market.mode === 'down') return { status: 503, body: 'unavailable' };
    if (market.mode === 'limited')
      return { body: { Information: 'Our standard API rate limit is 25 requests per day.' } };
    if (market.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, 1500));
    return globalQuote(request);
  },
});
afterAll(() => provider.close());

/** A clock the test moves: freshness is about time. */
const clock = { at: Date.now(), now: () => new Date(clock.at) };
const test = apiTest(
  { QUOTE_API_URL: provider.url, QUOTE_API_KEY: 'quote-key', QUOTE_TIMEOUT_MS: '500', QUOTE_MAX_AGE_SECONDS: '60' },
  { clock },
);

const callsFor = (symbol: string) =>
  provider.requests.filter((request) => request.query.get('symbol') === symbol).length;

async function holdingWithCode(caller: Caller, stockCode: string, currency?: string) {
  const { createHolding, createTrade } = caller.api.ledger.investments;
  const holding = bodyOf(
    await createHolding({ body: { name: stockCode, stockCode, ...(currency ? { currency } : {}) } }),
    201,
  );
  await createTrade({
    body: { holdingId: holding.id, side: 'BUY', quantity: '2', price: '100', tradedAt: '2026-01-02' },
  });
  return holding.id;
}

beforeEach(() => {
  market.mode = 'up';
  clock.at = Date.now();
});

describe('quotes: a shared cache with a freshness window', () => {
  test('parallel portfolio requests of many members cost the provider one call per code and window', async ({
    premium,
    admin,
  }) => {
    market.prices.set('BUSY', '150.25');
    await holdingWithCode(premium, 'BUSY');
    await holdingWithCode(admin, 'BUSY');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => (index % 2 ? admin : premium).api.ledger.investments.portfolio()),
    );
    for (const answer of answers) bodyOf(answer, 200);
    expect(callsFor('BUSY')).toBe(1);
    // The one that asked shows the price; the list of everyone now reads it from the cache.
    const holdings = bodyOf(await premium.api.ledger.investments.listHoldings(), 200).items;
    expect(holdings[0]).toMatchObject({ currentPrice: '150', priceUpdatedAt: new Date(clock.at).toISOString() });
    expect(bodyOf(await admin.api.ledger.investments.portfolio(), 200).holdings[0]?.currentPrice).toBe('150');
    expect(callsFor('BUSY')).toBe(1);

    clock.at += 30_000;
    await premium.api.ledger.investments.portfolio();
    expect(callsFor('BUSY')).toBe(1);
    clock.at += 31_000;
    market.prices.set('BUSY', '160');
    await Promise.all([premium.api.ledger.investments.portfolio(), admin.api.ledger.investments.listHoldings()]);
    expect(callsFor('BUSY')).toBe(2);
    expect(bodyOf(await premium.api.ledger.investments.portfolio(), 200).holdings[0]).toMatchObject({
      currentPrice: '160',
      valuation: '320',
      valuationProfit: '120',
    });
  });

  test('when the provider is down the view answers with the last known quote and its time', async ({ premium }) => {
    market.prices.set('KEEP', '123.4567');
    await holdingWithCode(premium, 'KEEP', 'USD');
    const fetchedAt = new Date(clock.at).toISOString();
    expect(bodyOf(await premium.api.ledger.investments.portfolio(), 200).holdings[0]).toMatchObject({
      currentPrice: '123.4567',
      valuation: '246.9134',
      priceUpdatedAt: fetchedAt,
    });

    for (const mode of ['down', 'limited', 'slow'] as const) {
      market.mode = mode;
      clock.at += 61_000;
      const calls = callsFor('KEEP');
      const portfolio = bodyOf(await premium.api.ledger.investments.portfolio(), 200);
      expect(portfolio.holdings[0]).toMatchObject({ currentPrice: '123.4567', priceUpdatedAt: fetchedAt });
      expect(portfolio.foreignTotals).toEqual([
        {
          currency: 'USD',
          purchaseAmount: '200',
          valuation: '246.9134',
          valuationProfit: '46.9134',
          realizedProfit: '0',
        },
      ]);
      expect(callsFor('KEEP')).toBe(calls + 1);
      // A failed refresh is not retried by every request: the next try waits for the next window.
      bodyOf(await premium.api.ledger.investments.listHoldings(), 200);
      expect(callsFor('KEEP')).toBe(calls + 1);
    }
  });

  test('a code the provider has never priced shows no valuation, and counts at its purchase amount', async ({
    premium,
  }) => {
    market.mode = 'down';
    await holdingWithCode(premium, 'COLD');
    const portfolio = bodyOf(await premium.api.ledger.investments.portfolio(), 200);
    expect(portfolio.holdings[0]).toMatchObject({ currentPrice: null, valuation: null, valuationProfit: null });
    expect(portfolio.totals).toEqual({
      purchaseAmount: '200',
      valuation: '200',
      valuationProfit: '0',
      realizedProfit: '0',
    });
  });
});

describe('quotes: GET /api/account/quotes/:code', () => {
  test('answers the quote as the provider gave it, from Alpha Vantage GLOBAL_QUOTE', async ({ premium }) => {
    market.prices.set('IBM', '187.2300');
    const quote = bodyOf(await premium.api.ledger.investments.quote({ params: { code: 'ibm' } }), 200);
    expect(quote).toEqual({
      stockCode: 'IBM',
      name: null,
      price: '187.23',
      currency: null,
      asOf: new Date(clock.at).toISOString(),
    });
    const [asked] = provider.requests.filter((request) => request.query.get('symbol') === 'IBM');
    expect(Object.fromEntries(asked!.query)).toEqual({ function: 'GLOBAL_QUOTE', symbol: 'IBM', apikey: 'quote-key' });
  });

  test('an unknown code is 404; no known quote while the provider is down is 503', async ({ premium }) => {
    problemOf(await premium.api.ledger.investments.quote({ params: { code: 'NOSUCH' } }), 404, 'NOT_FOUND');
    market.mode = 'down';
    problemOf(await premium.api.ledger.investments.quote({ params: { code: 'NEWCODE' } }), 503, 'PROVIDER_UNAVAILABLE');
    market.prices.set('OLDCODE', '10');
    market.mode = 'up';
    bodyOf(await premium.api.ledger.investments.quote({ params: { code: 'OLDCODE' } }), 200);
    market.mode = 'down';
    clock.at += 61_000;
    const stale = bodyOf(await premium.api.ledger.investments.quote({ params: { code: 'OLDCODE' } }), 200);
    expect(stale.asOf).toBe(new Date(clock.at - 61_000).toISOString());
  });

  test('lookups are rate-limited per member', async ({ premium }) => {
    market.prices.set('RATE', '1');
    const answers = [];
    for (let index = 0; index < 31; index += 1) {
      answers.push(await premium.api.ledger.investments.quote({ params: { code: 'RATE' } }));
    }
    expect(answers.slice(0, 30).every((answer) => answer.status === 200)).toBe(true);
    const limited = problemOf(answers[30]!, 429, 'RATE_LIMITED');
    expect(limited.status).toBe(429);
    expect(callsFor('RATE')).toBe(1);
  });
});
