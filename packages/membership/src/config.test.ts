import { loadEnvironment, requireWholeGroups } from '@nestegg/config';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appStoreGroup, billingEnvShape, refuseTestModeInProduction, storeGroup } from './config.js';
import { ProductCatalog } from './products.js';

const shape = { NODE_ENV: z.string().default('development'), ...billingEnvShape };
const schema = z
  .object(shape)
  .superRefine(requireWholeGroups([storeGroup, appStoreGroup]))
  .superRefine(refuseTestModeInProduction);
const load = (source: Record<string, string>) => loadEnvironment(schema, Object.keys(shape), source);

describe('billing configuration', () => {
  it('reads the products', () => {
    expect(
      load({ BILLING_PRODUCTS: 'premium_monthly:MONTHLY:4900:KRW, premium_yearly:YEARLY:49000:KRW' }).BILLING_PRODUCTS,
    ).toEqual([
      {
        id: 'premium_monthly',
        period: 'MONTHLY',
        price: 4900,
        currency: 'KRW',
        storeIds: { GOOGLE_PLAY: 'premium_monthly', APP_STORE: 'premium_monthly' },
      },
      {
        id: 'premium_yearly',
        period: 'YEARLY',
        price: 49000,
        currency: 'KRW',
        storeIds: { GOOGLE_PLAY: 'premium_yearly', APP_STORE: 'premium_yearly' },
      },
    ]);
    expect(() => load({ BILLING_PRODUCTS: 'premium:WEEKLY:1:KRW' })).toThrow(/BILLING_PRODUCTS/);
  });

  it('names each product in each store: the catalog id unless an entry says otherwise (BL23)', () => {
    const products = load({
      BILLING_PRODUCTS:
        'premium_monthly:MONTHLY:4900:KRW:appstore=app.nestegg.premium.monthly,premium_yearly:YEARLY:49000:KRW:googleplay=yearly:appstore=app.nestegg.premium.yearly',
    }).BILLING_PRODUCTS;
    expect(products.map((product) => product.storeIds)).toEqual([
      { GOOGLE_PLAY: 'premium_monthly', APP_STORE: 'app.nestegg.premium.monthly' },
      { GOOGLE_PLAY: 'yearly', APP_STORE: 'app.nestegg.premium.yearly' },
    ]);
    const catalog = new ProductCatalog(products);
    expect(catalog.findInStore('APP_STORE', 'app.nestegg.premium.yearly')?.id).toBe('premium_yearly');
    expect(catalog.findInStore('APP_STORE', 'premium_yearly')).toBeUndefined();
    expect(catalog.findNamed('GOOGLE_PLAY', 'yearly')?.id).toBe('premium_yearly');
    expect(() => load({ BILLING_PRODUCTS: 'a:MONTHLY:1:KRW:appstore=x,b:YEARLY:2:KRW:appstore=x' })).toThrow(
      /two products have the APP_STORE id "x"/,
    );
    expect(() => load({ BILLING_PRODUCTS: 'a:MONTHLY:1:KRW:appstore=x:appstore=y' })).toThrow(/names appstore twice/);
    expect(() => load({ BILLING_PRODUCTS: 'a:MONTHLY:1:KRW:steam=x' })).toThrow(/BILLING_PRODUCTS/);
  });

  it('wants the App Store configured all or nothing (BL24)', () => {
    expect(() => load({ APPSTORE_BUNDLE_ID: 'app.nestegg' })).toThrow(
      /APPSTORE_PRIVATE_KEY: required because APPSTORE_BUNDLE_ID is set/,
    );
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
