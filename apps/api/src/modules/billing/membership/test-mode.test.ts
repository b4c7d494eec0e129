import { Writable } from 'node:stream';
import { describe, expect } from 'vitest';
import { buildApp } from '../../../app.js';
import { InvalidEnvironmentError, loadEnv } from '../../../env.js';
import { bodyOf, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';
import { PRODUCTS, purchaseRows, sessionPlan } from './billing.fixture.js';

const test = apiTest({ BILLING_TEST_MODE: 'true', BILLING_PRODUCTS: PRODUCTS });
const DAY = 86_400_000;

describe('billing test mode', () => {
  test('a test- token is accepted without the store: PREMIUM for one period, applied once', async ({
    app,
    free,
    other,
  }) => {
    const body = { productId: 'premium_monthly', purchaseToken: `test-${free.id}` };
    const granted = bodyOf(await free.api.billing.verify({ body }), 200);
    expect(granted).toMatchObject({ plan: 'PREMIUM', autoRenew: true, state: 'ACTIVE', productId: 'premium_monthly' });
    const days = (Date.parse(granted.planExpiresAt!) - Date.now()) / DAY;
    expect(days).toBeGreaterThan(27);
    expect(days).toBeLessThanOrEqual(31);
    expect(await sessionPlan(app, free)).toBe('PREMIUM');
    expect((await purchaseRows(app, body.purchaseToken))[0]).toMatchObject({ test: true, memberId: free.id });

    expect(bodyOf(await free.api.billing.verify({ body }), 200)).toEqual(granted);
    problemOf(await other.api.billing.verify({ body }), 409, 'PURCHASE_OWNED_ELSEWHERE');
    const raced = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? free : other).api.billing.verify({ body: { ...body, purchaseToken: `test-race-${free.id}` } }),
      ),
    );
    expect(raced.filter((answer) => answer.status === 200)).toHaveLength(4);
    expect(await purchaseRows(app, `test-race-${free.id}`)).toHaveLength(1);
  });

  test('cancel and resume flip auto-renewal of a test purchase', async ({ free }) => {
    bodyOf(
      await free.api.billing.verify({ body: { productId: 'premium_yearly', purchaseToken: `test-y-${free.id}` } }),
      200,
    );
    expect(bodyOf(await free.api.billing.cancel(), 200)).toMatchObject({
      plan: 'PREMIUM',
      autoRenew: false,
      state: 'CANCELED',
    });
    expect(bodyOf(await free.api.billing.resume(), 200)).toMatchObject({
      plan: 'PREMIUM',
      autoRenew: true,
      state: 'ACTIVE',
    });
    expect(bodyOf(await free.api.billing.restore(), 200)).toMatchObject({ plan: 'PREMIUM', state: 'ACTIVE' });
  });

  test('any other token still needs the store (not configured here: 503)', async ({ free }) => {
    problemOf(
      await free.api.billing.verify({ body: { productId: 'premium_monthly', purchaseToken: 'real-token' } }),
      503,
      'STORE_NOT_CONFIGURED',
    );
  });

  test('store notifications are not configured here: 503, so the store retries later', async ({ app }) => {
    const response = await app.inject({ method: 'POST', url: '/api/billing/store/rtdn', payload: {} });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'STORE_NOT_CONFIGURED' });
  });

  test('refuses to start with NODE_ENV=production unless forced, and says so when forced', async ({ app }) => {
    const production = {
      DATABASE_URL: app.env.DATABASE_URL,
      NODE_ENV: 'production',
      BILLING_TEST_MODE: 'true',
      BILLING_PRODUCTS: PRODUCTS,
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
    };
    expect(() => loadEnv(production)).toThrowError(InvalidEnvironmentError);
    expect(() => loadEnv(production)).toThrowError(/BILLING_TEST_MODE: refused with NODE_ENV=production/);

    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const forced = await buildApp(loadEnv({ ...production, BILLING_TEST_MODE_FORCE: 'true' }), {
      logger: { level: 'warn', stream },
    });
    await forced.close();
    expect(lines.join('')).toMatch(/BILLING_TEST_MODE is on in production/);
  });
});
