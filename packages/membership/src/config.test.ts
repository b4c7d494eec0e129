import { loadEnvironment, requireWholeGroups } from '@nestegg/config';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { billingEnvShape, refuseTestModeInProduction, storeGroup } from './config.js';

const shape = { NODE_ENV: z.string().default('development'), ...billingEnvShape };
const schema = z
  .object(shape)
  .superRefine(requireWholeGroups([storeGroup]))
  .superRefine(refuseTestModeInProduction);
const load = (source: Record<string, string>) => loadEnvironment(schema, Object.keys(shape), source);

describe('billing configuration', () => {
  it('reads the products', () => {
    expect(
      load({ BILLING_PRODUCTS: 'premium_monthly:MONTHLY:4900:KRW, premium_yearly:YEARLY:49000:KRW' }).BILLING_PRODUCTS,
    ).toEqual([
      { id: 'premium_monthly', period: 'MONTHLY', price: 4900, currency: 'KRW' },
      { id: 'premium_yearly', period: 'YEARLY', price: 49000, currency: 'KRW' },
    ]);
    expect(() => load({ BILLING_PRODUCTS: 'premium:WEEKLY:1:KRW' })).toThrow(/BILLING_PRODUCTS/);
  });

  it('refuses test mode in production unless forced', () => {
    expect(() => load({ NODE_ENV: 'production', BILLING_TEST_MODE: 'true' })).toThrow(
      /BILLING_TEST_MODE: refused with NODE_ENV=production/,
    );
    expect(
      load({ NODE_ENV: 'production', BILLING_TEST_MODE: 'true', BILLING_TEST_MODE_FORCE: 'true' }).BILLING_TEST_MODE,
    ).toBe(true);
    expect(load({ NODE_ENV: 'development', BILLING_TEST_MODE: 'true' }).BILLING_TEST_MODE).toBe(true);
  });

  it('wants the store configured all or nothing', () => {
    expect(() => load({ STORE_PACKAGE_NAME: 'app.nestegg' })).toThrow(
      /STORE_SERVICE_ACCOUNT_EMAIL: required because STORE_PACKAGE_NAME is set/,
    );
  });
});
