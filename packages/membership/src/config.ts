/**
 * The billing environment both apps read (the api and the billing worker): products, test mode and
 * the store's developer API. Each app adds these fragments to its own schema.
 */
import { booleanFlag, commaList, type FeatureGroup, httpUrl, isGroupConfigured } from '@nestegg/config';
import { z } from 'zod';
import type { BillingProduct } from './products.js';

const PRODUCT_ENTRY = /^([A-Za-z0-9._]{1,150}):(MONTHLY|YEARLY):(\d{1,12}):([A-Z]{3})$/;

/** `BILLING_PRODUCTS`: `id:MONTHLY|YEARLY:price:CURRENCY`, comma-separated (price in whole units). */
export const billingProducts = commaList.transform((entries, context): BillingProduct[] =>
  entries.map((entry) => {
    const match = PRODUCT_ENTRY.exec(entry);
    if (!match) {
      context.addIssue({
        code: 'custom',
        message: `"${entry}" is not id:MONTHLY|YEARLY:price:CURRENCY (e.g. premium_monthly:MONTHLY:4900:KRW)`,
      });
      return { id: entry, period: 'MONTHLY', price: 0, currency: 'XXX' };
    }
    const [, id, period, price, currency] = match;
    return { id: id!, period: period as BillingProduct['period'], price: Number(price), currency: currency! };
  }),
);

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
