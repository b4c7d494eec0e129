import type { FxCurrency } from '@nestegg/contract';
import { fxRate } from '@nestegg/db';
import { dateIn } from '@nestegg/domain';
import { type FakeResponse, startFakeServer } from '@nestegg/testing';
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { ExchangeRatesService } from './exchange-rates.service.js';

const fake = await startFakeServer();
afterAll(() => fake.close());
const test = apiTest({ FX_API_URL: `${fake.url}/`, FX_API_KEY: 'k', FX_TIMEOUT_MS: '500' });
const unconfigured = apiTest();

const today = () => dateIn('UTC', new Date());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const callsTo = (path: string) => fake.requests.filter((request) => request.path === path).length;

/** A JSON body written by hand, so numbers reach the client exactly as a provider would write them. */
const rawJson = (text: string): FakeResponse => ({ headers: { 'content-type': 'application/json' }, body: text });
const pair = (rate: string) =>
  rawJson(`{"result":"success","time_last_update_unix":1763769601,"conversion_rate":${rate}}`);
const failure = (status: number, errorType: string): FakeResponse => ({
  status,
  body: { result: 'error', 'error-type': errorType },
});

describe('exchange rates from the provider', () => {
  test('KRW→USD 0.000731 keeps its digits, and the pair is asked once a day', async ({ app, free }) => {
    fake.on('GET /v6/k/pair/KRW/USD', () => pair('0.000731'));
    const first = bodyOf(await free.api.ledger.fx.rate({ query: { from: 'KRW', to: 'USD' } }), 200);
    expect(first).toEqual({ from: 'KRW', to: 'USD', rate: '0.000731', date: today() });
    expect(bodyOf(await free.api.ledger.fx.rate({ query: { from: 'KRW', to: 'USD' } }), 200)).toEqual(first);
    expect(callsTo('/v6/k/pair/KRW/USD')).toBe(1);
    const [row] = await app.db
      .select()
      .from(fxRate)
      .where(and(eq(fxRate.base, 'KRW'), eq(fxRate.quote, 'USD')));
    expect(row).toMatchObject({ day: today(), rate: '0.000731000000' });
  });

  test('takes the decimal as written, never through a float (exponents too)', async ({ free }) => {
    fake.on('GET /v6/k/pair/XAU/VND', () => pair('98765432.123456789012'));
    fake.on('GET /v6/k/pair/IDR/KWD', () => pair('1.93e-5'));
    fake.on('GET /v6/k/pair/JPY/KRW', () => pair('9.0123456789012345678'));
    const rate = async (from: FxCurrency, to: FxCurrency) =>
      bodyOf(await free.api.ledger.fx.rate({ query: { from, to } }), 200).rate;
    expect(await rate('XAU', 'VND')).toBe('98765432.123456789012');
    expect(await rate('IDR', 'KWD')).toBe('0.0000193');
    // numeric(24,12) rounds the 13th decimal.
    expect(await rate('JPY', 'KRW')).toBe('9.012345678901');
  });

  test('ten parallel requests cost the provider one call', async ({ free }) => {
    fake.on('GET /v6/k/pair/EUR/KRW', async () => {
      await sleep(100);
      return pair('1450.25');
    });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => free.api.ledger.fx.rate({ query: { from: 'EUR', to: 'KRW' } })),
    );
    expect(answers.map((answer) => bodyOf(answer, 200).rate)).toEqual(Array(10).fill('1450.25'));
    expect(callsTo('/v6/k/pair/EUR/KRW')).toBe(1);
  });

  test('two replicas asking at once cost the provider one call (advisory lock, then the cache)', async ({ app }) => {
    fake.on('GET /v6/k/pair/GBP/KRW', async () => {
      await sleep(100);
      return pair('1800.5');
    });
    const replica = () =>
      new ExchangeRatesService({
        db: app.db,
        clock: { now: () => new Date() },
        logger: app.log,
        provider: { baseUrl: fake.url, apiKey: 'k', timeoutMs: 2000 },
        timeZone: 'UTC',
      });
    const replicas = [replica(), replica(), replica()];
    const rates = await Promise.all(replicas.flatMap((service) => [1, 2].map(() => service.rateFor('GBP', 'KRW'))));
    expect(rates.map((rate) => rate.rate)).toEqual(Array(6).fill('1800.5'));
    expect(callsTo('/v6/k/pair/GBP/KRW')).toBe(1);
  });

  test('the same currency is 1 without asking the provider', async ({ free }) => {
    const before = fake.requests.length;
    expect(bodyOf(await free.api.ledger.fx.rate({ query: { from: 'KRW', to: 'KRW' } }), 200)).toEqual({
      from: 'KRW',
      to: 'KRW',
      rate: '1',
      date: today(),
    });
    expect(fake.requests.length).toBe(before);
  });

  test("a past day's rate comes from the history, and its other quotes are kept", async ({ free }) => {
    fake.on('GET /v6/k/history/USD/2024/3/1', () =>
      rawJson(
        '{"result":"success","year":2024,"month":3,"day":1,"conversion_rates":{"USD":1,"KRW":1331.5,"JPY":150.12}}',
      ),
    );
    const query = (to: FxCurrency) => ({ query: { from: 'USD' as const, to, date: '2024-03-01' } });
    expect(bodyOf(await free.api.ledger.fx.rate(query('KRW')), 200)).toEqual({
      from: 'USD',
      to: 'KRW',
      rate: '1331.5',
      date: '2024-03-01',
    });
    expect(bodyOf(await free.api.ledger.fx.rate(query('JPY')), 200).rate).toBe('150.12');
    expect(callsTo('/v6/k/history/USD/2024/3/1')).toBe(1);
    problemOf(await free.api.ledger.fx.rate(query('CHF')), 404, 'CURRENCY_NOT_FOUND');
  });

  test('a future day is refused', async ({ free }) => {
    problemOf(
      await free.api.ledger.fx.rate({ query: { from: 'USD', to: 'KRW', date: '2999-01-01' } }),
      400,
      'VALIDATION_FAILED',
    );
  });
});

describe('a missing rate is an error, never 1:1', () => {
  test('a currency the provider lacks is 404 CURRENCY_NOT_FOUND; a malformed or non-ISO one 400', async ({
    app,
    free,
  }) => {
    fake.on('GET /v6/k/pair/USD/XDR', () => failure(404, 'unsupported-code'));
    fake.on('GET /v6/k/history/HRK/2024/1/2', () => failure(404, 'unsupported-code'));
    fake.on('GET /v6/k/history/USD/1900/1/2', () => failure(404, 'no-data-available'));
    problemOf(await free.api.ledger.fx.rate({ query: { from: 'USD', to: 'XDR' } }), 404, 'CURRENCY_NOT_FOUND');
    problemOf(
      await free.api.ledger.fx.rate({ query: { from: 'HRK', to: 'USD', date: '2024-01-02' } }),
      404,
      'CURRENCY_NOT_FOUND',
    );
    problemOf(
      await free.api.ledger.fx.rate({ query: { from: 'USD', to: 'KRW', date: '1900-01-02' } }),
      404,
      'CURRENCY_NOT_FOUND',
    );
    problemOf(
      await free.api.ledger.fx.rate({ query: { from: 'usd' as FxCurrency, to: 'KRW' } }),
      400,
      'VALIDATION_FAILED',
    );
    problemOf(
      await free.api.ledger.fx.rate({ query: { from: 'USD', to: 'XYZ' as FxCurrency } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(await app.db.select().from(fxRate).where(eq(fxRate.quote, 'XYZ'))).toEqual([]);
  });

  test('provider down, slow, failing, over quota or answering nonsense is 503, and nothing is cached', async ({
    app,
    free,
  }) => {
    const cases: Array<[FxCurrency, () => FakeResponse | Promise<FakeResponse>]> = [
      ['CHF', () => ({ status: 500, body: 'Internal Server Error' })],
      ['CAD', () => ({ status: 502, body: { result: 'error' } })],
      ['AUD', () => failure(200, 'quota-reached')],
      ['NZD', () => failure(403, 'invalid-key')],
      ['SGD', () => rawJson('<html>maintenance</html>')],
      ['HKD', () => rawJson('{"result":"success"}')],
      ['THB', () => pair('-3')],
      ['MYR', () => pair('0')],
      [
        'PHP',
        async () => {
          await sleep(2000);
          return pair('56.1');
        },
      ],
    ];
    for (const [quote, reply] of cases) {
      fake.on(`GET /v6/k/pair/USD/${quote}`, reply);
      const answer = await free.api.ledger.fx.rate({ query: { from: 'USD', to: quote } });
      problemOf(answer, 503, 'PROVIDER_UNAVAILABLE');
      expect(answer.headers.get('retry-after')).toBe('30');
    }
    // Nothing listens here: connection refused.
    const closed = await startFakeServer();
    await closed.close();
    const unreachable = new ExchangeRatesService({
      db: app.db,
      clock: { now: () => new Date() },
      logger: app.log,
      provider: { baseUrl: closed.url, apiKey: 'k', timeoutMs: 500 },
      timeZone: 'UTC',
    });
    await expect(unreachable.rateFor('USD', 'CNY')).rejects.toMatchObject({
      status: 503,
      code: 'PROVIDER_UNAVAILABLE',
    });
    expect(
      await app.db
        .select()
        .from(fxRate)
        .where(and(eq(fxRate.base, 'USD'), eq(fxRate.day, today()))),
    ).toEqual([]);

    // The provider is back: the rate is fetched then.
    fake.on('GET /v6/k/pair/USD/CHF', () => pair('0.8812'));
    expect(bodyOf(await free.api.ledger.fx.rate({ query: { from: 'USD', to: 'CHF' } }), 200).rate).toBe('0.8812');
  });

  test('needs a session', async ({ anonymous }) => {
    problemOf(await anonymous.ledger.fx.rate({ query: { from: 'USD', to: 'KRW' } }), 401, 'UNAUTHENTICATED');
  });
});

describe('without a provider configured', () => {
  unconfigured('answers 503 PROVIDER_NOT_CONFIGURED, but a same-currency rate is still 1', async ({ free }) => {
    problemOf(await free.api.ledger.fx.rate({ query: { from: 'USD', to: 'KRW' } }), 503, 'PROVIDER_NOT_CONFIGURED');
    expect(bodyOf(await free.api.ledger.fx.rate({ query: { from: 'USD', to: 'USD' } }), 200).rate).toBe('1');
  });
});
