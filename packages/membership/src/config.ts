/**
 * The billing environment both apps read (the api and the billing worker): products, test mode and
 * the store's developer API. Each app adds these fragments to its own schema.
 */
import { readFileSync } from 'node:fs';
import { booleanFlag, commaList, type FeatureGroup, httpUrl, isGroupConfigured } from '@nestegg/config';
import { z } from 'zod';
import { appleRootCaG3 } from './app-store/apple-root.js';
import type { BillingProduct } from './products.js';

const PRODUCT_ENTRY =
  /^([A-Za-z0-9._]{1,150}):(MONTHLY|YEARLY):(\d{1,12}):([A-Z]{3})((?::(?:googleplay|appstore)=[A-Za-z0-9._]{1,150}){0,2})$/;
const STORE_KEYS = { googleplay: 'GOOGLE_PLAY', appstore: 'APP_STORE' } as const;

/**
 * `BILLING_PRODUCTS`: `id:MONTHLY|YEARLY:price:CURRENCY[:googleplay=<id>][:appstore=<id>]`, comma-separated (price
 * in whole units). The product's id in a store is the catalog id unless the entry names another (decision BL23).
 */
export const billingProducts = commaList.transform((entries, context): BillingProduct[] => {
  const products = entries.map((entry): BillingProduct => {
    const match = PRODUCT_ENTRY.exec(entry);
    if (!match) {
      context.addIssue({
        code: 'custom',
        message: `"${entry}" is not id:MONTHLY|YEARLY:price:CURRENCY[:googleplay=<id>][:appstore=<id>] (e.g. premium_monthly:MONTHLY:4900:KRW:appstore=app.nestegg.premium.monthly)`,
      });
      return {
        id: entry,
        period: 'MONTHLY',
        price: 0,
        currency: 'XXX',
        storeIds: { GOOGLE_PLAY: entry, APP_STORE: entry },
      };
    }
    const [, id, period, price, currency, stores] = match;
    const storeIds = { GOOGLE_PLAY: id!, APP_STORE: id! };
    const named = new Set<string>();
    for (const part of stores!.split(':').filter(Boolean)) {
      const [key, storeId] = part.split('=') as [keyof typeof STORE_KEYS, string];
      if (named.has(key)) context.addIssue({ code: 'custom', message: `"${entry}" names ${key} twice` });
      named.add(key);
      storeIds[STORE_KEYS[key]] = storeId;
    }
    return { id: id!, period: period as BillingProduct['period'], price: Number(price), currency: currency!, storeIds };
  });
  for (const store of ['GOOGLE_PLAY', 'APP_STORE'] as const) {
    const ids = products.map((product) => product.storeIds[store]);
    const twice = ids.find((storeId, index) => ids.indexOf(storeId) !== index);
    if (twice) context.addIssue({ code: 'custom', message: `two products have the ${store} id "${twice}"` });
  }
  const catalogIds = products.map((product) => product.id);
  const repeated = catalogIds.find((id, index) => catalogIds.indexOf(id) !== index);
  if (repeated) context.addIssue({ code: 'custom', message: `the product "${repeated}" is listed twice` });
  return products;
});

/** A PEM private key; `\n` escapes (as in the service account's JSON key file) become line breaks. */
const privateKeyPem = z
  .string()
  .transform((value) => value.replace(/\\n/g, '\n').trim())
  .refine(
    (value) => /^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----$/.test(value),
    'expected the service account\'s PKCS#8 PEM key ("-----BEGIN PRIVATE KEY-----…")',
  );

const milliseconds = (fallback: number) => z.coerce.number().int().min(100).max(120_000).default(fallback);

/** The store's developer API: the api (verify, cancel, restore) and the worker (notifications, expiry) use it. */
export const storeGroup = {
  name: 'the app store (Google Play Developer API)',
  variables: ['STORE_PACKAGE_NAME', 'STORE_SERVICE_ACCOUNT_EMAIL', 'STORE_SERVICE_ACCOUNT_PRIVATE_KEY'],
} satisfies FeatureGroup;

/** The App Store Server API and signed data (decision BL24): both apps. */
export const appStoreGroup = {
  name: 'the App Store (App Store Server API)',
  variables: [
    'APPSTORE_BUNDLE_ID',
    'APPSTORE_APP_APPLE_ID',
    'APPSTORE_ISSUER_ID',
    'APPSTORE_KEY_ID',
    'APPSTORE_PRIVATE_KEY',
  ],
} satisfies FeatureGroup;

/** The store's real-time notifications pushed to the api (Pub/Sub push with an OIDC token). */
export const storePushGroup = {
  name: "the app store's push notifications",
  variables: ['STORE_PUSH_AUDIENCE', 'STORE_PUSH_SERVICE_ACCOUNT'],
} satisfies FeatureGroup;

/** Variables of both apps. */
export const billingEnvShape = {
  BILLING_PRODUCTS: billingProducts,
  /** A purchase token starting with `test-` is accepted without the store (never in production unless forced). */
  BILLING_TEST_MODE: booleanFlag(false),
  BILLING_TEST_MODE_FORCE: booleanFlag(false),
  STORE_PACKAGE_NAME: z.string().optional(),
  STORE_SERVICE_ACCOUNT_EMAIL: z.string().email().optional(),
  STORE_SERVICE_ACCOUNT_PRIVATE_KEY: privateKeyPem.optional(),
  STORE_API_URL: httpUrl.default('https://androidpublisher.googleapis.com'),
  STORE_TOKEN_URL: httpUrl.default('https://oauth2.googleapis.com/token'),
  STORE_TIMEOUT_MS: milliseconds(10_000),
  /** The App Store (decision BL24): all five of the group or none. */
  APPSTORE_BUNDLE_ID: z.string().optional(),
  APPSTORE_APP_APPLE_ID: z.coerce.number().int().positive().optional(),
  APPSTORE_ISSUER_ID: z.string().optional(),
  APPSTORE_KEY_ID: z.string().optional(),
  /** The in-app purchase key (`SubscriptionKey_<id>.p8`, PKCS#8 PEM); `APPSTORE_PRIVATE_KEY_FILE` reads it from a file. */
  APPSTORE_PRIVATE_KEY: privateKeyPem.optional(),
  /** Where this server's App Store lives: `Production` (sandbox data still verifies) or `Sandbox`. */
  APPSTORE_ENVIRONMENT: z.enum(['Production', 'Sandbox']).default('Production'),
  /** With `Production`: whether sandbox purchases (App Review, TestFlight) grant PREMIUM (decision BL25). */
  APPSTORE_SANDBOX_PURCHASES: booleanFlag(false),
  /** DER or PEM root certificates, comma-separated paths; default Apple Root CA - G3 (shipped). */
  APPSTORE_ROOT_CERTIFICATES: commaList,
  /** Certificate revocation (OCSP) and expiry checked against the current date when verifying signed data. */
  APPSTORE_ONLINE_CHECKS: booleanFlag(true),
  APPSTORE_API_URL: httpUrl.default('https://api.storekit.apple.com'),
  APPSTORE_SANDBOX_API_URL: httpUrl.default('https://api.storekit-sandbox.apple.com'),
};

/** Variables of the api only, for the App Store. */
export const appStoreApiEnvShape = {
  /** Where a member manages an App Store subscription. */
  APPSTORE_MANAGE_URL: httpUrl.default('https://apps.apple.com/account/subscriptions'),
};

/** Variables of the api only. */
export const storePushEnvShape = {
  STORE_PUSH_AUDIENCE: z.string().optional(),
  STORE_PUSH_SERVICE_ACCOUNT: z.string().email().optional(),
  STORE_PUSH_JWKS_URL: httpUrl.default('https://www.googleapis.com/oauth2/v3/certs'),
  STORE_PUSH_ISSUERS: commaList
    .transform((issuers) => (issuers.length > 0 ? issuers : ['https://accounts.google.com', 'accounts.google.com']))
    .pipe(z.array(z.string()).min(1)),
  /** Where a member manages (and restores) a subscription; `sku` and `package` are added. */
  STORE_MANAGE_URL: httpUrl.default('https://play.google.com/store/account/subscriptions'),
};

type BillingEnv = z.output<z.ZodObject<typeof billingEnvShape>> & { NODE_ENV: string };

/**
 * Test mode grants PREMIUM to anyone who sends a `test-` token: refused with `NODE_ENV=production`
 * unless `BILLING_TEST_MODE_FORCE` says it is meant (then the app logs a warning at start).
 */
export function refuseTestModeInProduction(env: BillingEnv, context: z.RefinementCtx): void {
  if (env.BILLING_TEST_MODE && env.NODE_ENV === 'production' && !env.BILLING_TEST_MODE_FORCE) {
    context.addIssue({
      code: 'custom',
      path: ['BILLING_TEST_MODE'],
      message:
        'refused with NODE_ENV=production: test-mode tokens grant PREMIUM without payment (set BILLING_TEST_MODE_FORCE=true to run it anyway)',
    });
  }
}

/** Whether the process runs test mode in production on purpose (the apps log it loudly at start). */
export const testModeForcedInProduction = (env: BillingEnv): boolean =>
  env.BILLING_TEST_MODE && env.NODE_ENV === 'production';

export interface StoreApiConfig {
  packageName: string;
  serviceAccountEmail: string;
  privateKeyPem: string;
  apiUrl: string;
  tokenUrl: string;
  timeoutMs: number;
}

/** The store client's configuration, or null when the store is not configured (all or nothing). */
export function storeApiConfigOf(env: BillingEnv): StoreApiConfig | null {
  if (!isGroupConfigured(env, storeGroup)) return null;
  return {
    packageName: env.STORE_PACKAGE_NAME!.trim(),
    serviceAccountEmail: env.STORE_SERVICE_ACCOUNT_EMAIL!,
    privateKeyPem: env.STORE_SERVICE_ACCOUNT_PRIVATE_KEY!,
    apiUrl: env.STORE_API_URL.replace(/\/$/, ''),
    tokenUrl: env.STORE_TOKEN_URL,
    timeoutMs: env.STORE_TIMEOUT_MS,
  };
}

export interface AppStoreConfig {
  bundleId: string;
  appAppleId: number;
  issuerId: string;
  keyId: string;
  privateKeyPem: string;
  environment: 'Production' | 'Sandbox';
  /** Sandbox purchases grant PREMIUM (always with a Sandbox environment). */
  sandboxPurchases: boolean;
  /** DER certificates; Apple Root CA - G3 unless configured. */
  rootCertificates: Buffer[];
  onlineChecks: boolean;
  apiUrl: string;
  sandboxApiUrl: string;
  timeoutMs: number;
}

/** Reads a root certificate file: DER, or PEM (one or more certificates). */
function readCertificates(path: string): Buffer[] {
  const bytes = readFileSync(path);
  const text = bytes.toString('latin1');
  if (!text.includes('-----BEGIN CERTIFICATE-----')) return [bytes];
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/g)].map((match) =>
    Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64'),
  );
}

/** The App Store's configuration, or null when it is not configured (all or nothing). */
export function appStoreConfigOf(env: BillingEnv): AppStoreConfig | null {
  if (!isGroupConfigured(env, appStoreGroup)) return null;
  return {
    bundleId: env.APPSTORE_BUNDLE_ID!.trim(),
    appAppleId: env.APPSTORE_APP_APPLE_ID!,
    issuerId: env.APPSTORE_ISSUER_ID!.trim(),
    keyId: env.APPSTORE_KEY_ID!.trim(),
    privateKeyPem: env.APPSTORE_PRIVATE_KEY!,
    environment: env.APPSTORE_ENVIRONMENT,
    sandboxPurchases: env.APPSTORE_ENVIRONMENT === 'Sandbox' || env.APPSTORE_SANDBOX_PURCHASES,
    rootCertificates:
      env.APPSTORE_ROOT_CERTIFICATES.length > 0
        ? env.APPSTORE_ROOT_CERTIFICATES.flatMap(readCertificates)
        : [appleRootCaG3()],
    onlineChecks: env.APPSTORE_ONLINE_CHECKS,
    apiUrl: env.APPSTORE_API_URL.replace(/\/$/, ''),
    sandboxApiUrl: env.APPSTORE_SANDBOX_API_URL.replace(/\/$/, ''),
    timeoutMs: env.STORE_TIMEOUT_MS,
  };
}

export interface StorePushConfig {
  audience: string;
  serviceAccountEmail: string;
  jwksUrl: string;
  issuers: string[];
  timeoutMs: number;
}

type PushEnv = BillingEnv & z.output<z.ZodObject<typeof storePushEnvShape>>;

/** The push authentication's configuration, or null when it is not configured. */
export function storePushConfigOf(env: PushEnv): StorePushConfig | null {
  if (!isGroupConfigured(env, storePushGroup)) return null;
  return {
    audience: env.STORE_PUSH_AUDIENCE!.trim(),
    serviceAccountEmail: env.STORE_PUSH_SERVICE_ACCOUNT!,
    jwksUrl: env.STORE_PUSH_JWKS_URL,
    issuers: env.STORE_PUSH_ISSUERS,
    timeoutMs: env.STORE_TIMEOUT_MS,
  };
}
