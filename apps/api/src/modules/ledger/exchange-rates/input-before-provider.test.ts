import type { FxCurrency } from '@nestegg/contract';
import { describe, expect } from 'vitest';
import { problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';

// Issue 17 item 10: with no provider configured, a request that is wrong in itself is 400, not 503.
// The typed client refuses a code outside the list at compile time; a client in plain JavaScript sends it anyway.
const notACurrency = (code: string) => code as FxCurrency;
const test = apiTest({ FX_API_URL: '', FX_API_KEY: '', QUOTE_API_URL: '', QUOTE_API_KEY: '' });

describe('input is judged before the provider’s configuration', () => {
  test('GET /api/fx/rate: a code that is no currency is 400 naming the field; a real pair 503', async ({ free }) => {
    const problem = problemOf(
      await free.api.ledger.fx.rate({ query: { from: notACurrency('QQQ'), to: 'KRW' } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(problem.errors).toEqual([{ path: 'query.from', message: expect.any(String) }]);
    const both = problemOf(
      await free.api.ledger.fx.rate({ query: { from: notACurrency('QQQ'), to: notACurrency('ZZZ') } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(both.errors?.map((e) => e.path)).toEqual(['query.from', 'query.to']);
    problemOf(
      await free.api.ledger.fx.rate({ query: { from: 'USD', to: 'KRW', date: '2999-01-01' } }),
      400,
      'VALIDATION_FAILED',
    );
    problemOf(await free.api.ledger.fx.rate({ query: { from: 'USD', to: 'KRW' } }), 503, 'PROVIDER_NOT_CONFIGURED');
  });

  test('GET /api/account/quotes/{code}: a code with no letter or digit is 400; a well-formed one 503', async ({
    app,
    premium,
  }) => {
    for (const code of ['-', '%5E', '=', '.-', '%5E%5E']) {
      const response = await app.inject({
        method: 'GET',
        url: `/api/account/quotes/${code}`,
        headers: premium.headers,
      });
      expect(response.statusCode, code).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    for (const code of ['IBM', '005930.KS', '%5EGSPC', 'EURUSD%3DX']) {
      const response = await app.inject({
        method: 'GET',
        url: `/api/account/quotes/${code}`,
        headers: premium.headers,
      });
      expect(response.statusCode, code).toBe(503);
      expect(response.json()).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED' });
    }
  });

  test('identity-provider sign-in and store verification: a malformed body is 400 whatever is configured', async ({
    app,
    free,
  }) => {
    for (const url of ['/api/auth/idpone', '/api/auth/idptwo']) {
      const response = await app.inject({ method: 'POST', url, payload: {} });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    const verify = await app.inject({
      method: 'POST',
      url: '/api/billing/store/verify',
      headers: free.headers,
      payload: {},
    });
    expect(verify.statusCode).toBe(400);
    expect(verify.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
