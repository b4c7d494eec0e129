import {
  booleanFlag,
  commaList,
  databaseEnvShape,
  databaseTimeoutsEnvShape,
  type FeatureGroup,
  httpUrl,
  isGroupConfigured,
  listenHost,
  loadEnvironment,
  loadEnvironmentOrExit,
  port,
  positiveInt,
  processEnvShape,
  readPostgresUrl,
  redisUrl,
  requireDirectUrlBehindPooler,
  requireWholeGroups,
  timeZone,
} from '@nestegg/config';
import { REPORT_COUNTING_MIN_ACCOUNT_AGE_DAYS } from '@nestegg/contract';
import {
  appStoreApiEnvShape,
  appStoreGroup,
  billingEnvShape,
  refuseTestModeInProduction,
  storeGroup,
  storePushEnvShape,
  storePushGroup,
} from '@nestegg/membership';
import { z } from 'zod';
import { defaultPasswordHashConcurrency } from './lib/hash-concurrency.js';

/** `TRUST_PROXY`: `false` (default), `true`, a hop count, or a comma-separated list of proxy addresses/CIDRs. */
const trustProxy = z
  .string()
  .default('false')
  .transform((value): boolean | number | string[] => {
    if (value === 'true' || value === 'false') return value === 'true';
    if (/^\d+$/.test(value)) return Number(value);
    return value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
  });

const isOrigin = (value: string) => {
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) && url.origin === value;
  } catch {
    return false;
  }
};

/** `host:port,host:port,…` (host names, IPv4, or `[IPv6]:port`), at least one. */
const redisClusterNodes = z.string().transform((value, context) => {
  const parsed: Array<{ host: string; port: number }> = [];
  const nodes = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const node of nodes) {
    const match = /^(?:\[([^\]]+)\]|([^:\s/]+)):(\d{1,5})$/.exec(node);
    const portNumber = Number(match?.[3]);
    if (!match || portNumber < 1 || portNumber > 65535) {
      context.addIssue({ code: 'custom', message: `expected host:port, got "${node}"` });
      return z.NEVER;
    }
    parsed.push({ host: match[1] ?? match[2]!, port: portNumber });
  }
  if (parsed.length === 0) context.addIssue({ code: 'custom', message: 'expected at least one host:port' });
  return parsed;
});

/** Browser origins allowed to call the api, e.g. `https://app.example.com,http://localhost:5173`. */
const corsOrigins = commaList.refine(
  (origins) => origins.every(isOrigin),
  'expected comma-separated origins such as https://app.example.com (scheme, host and port; no path)',
);

const milliseconds = (fallback: number) => z.coerce.number().int().min(0).max(3_600_000).default(fallback);

/** `kid:base64key,…`: AES-256 keys (32 bytes each) by key id; the id is stored with each ciphertext. */
const encryptionKeys = commaList.transform((entries, context) =>
  entries.map((entry) => {
    const [id = '', secret = ''] = entry.split(':');
    const key = Buffer.from(secret, 'base64');
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32) {
      context.addIssue({ code: 'custom', message: 'expected key-id:base64-of-32-bytes entries, comma-separated' });
    }
    return { id, key };
  }),
);

export const identityProviderGroups = {
  IDPONE: { name: 'identity provider one', variables: ['IDPONE_CLIENT_ID', 'IDPONE_JWKS_URL', 'IDPONE_ISSUERS'] },
  IDPTWO: { name: 'identity provider two', variables: ['IDPTWO_CLIENT_ID', 'IDPTWO_JWKS_URL', 'IDPTWO_ISSUER'] },
} satisfies Record<string, FeatureGroup>;

export const ledgerFeatureGroups = {
  ACCOUNT_NUMBERS: { name: 'account-number encryption', variables: ['ACCOUNT_NUMBER_KEYS', 'ACCOUNT_NUMBER_KEY_ID'] },
  FX: { name: 'the exchange-rate provider', variables: ['FX_API_URL', 'FX_API_KEY'] },
  OCR: { name: 'the text-recognition provider', variables: ['OCR_API_URL', 'OCR_API_KEY'] },
  QUOTES: { name: 'the quote provider', variables: ['QUOTE_API_URL', 'QUOTE_API_KEY'] },
} satisfies Record<string, FeatureGroup>;

const shape = {
  ...processEnvShape,
  /** Billing: products, test mode, the store's developer API and its push notifications (see @nestegg/membership). */
  ...billingEnvShape,
  ...storePushEnvShape,
  ...appStoreApiEnvShape,
  ...databaseEnvShape(10),
  /** Fail fast while PostgreSQL is away: a 503 within about 2 s (decision FO1). */
  ...databaseTimeoutsEnvShape({ connectMs: 1500, acquireMs: 2000, statementMs: 30_000 }),
  /** Read replicas: the reads that tolerate lag, and read-your-writes reads once replayed (decisions DB20–DB26). */
  DATABASE_READ_URL: readPostgresUrl.optional(),
  /** Connections of each replica's pool (one pool per host of DATABASE_READ_URL). */
  DATABASE_READ_POOL_SIZE: positiveInt(10, 1000),
  /** A replica further behind than this serves nothing until it catches up (DB23). */
  DATABASE_READ_MAX_LAG_MS: z.coerce.number().int().min(100).max(3_600_000).default(5000),
  /** How often each replica is asked for its replay position and lag (DB22). */
  DATABASE_READ_PROBE_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(200),
  /** Loopback by default; the image and compose set 0.0.0.0 (decision I7). */
  HOST: listenHost,
  PORT: port(3000),
  /** `/metrics` (Prometheus) on a listener of its own, never the public port; 0 turns it off (decision O1). */
  METRICS_PORT: port(9464),
  /** Where the metrics listener binds; unset: HOST. */
  METRICS_HOST: z.string().optional(),
  PUBLIC_URL: httpUrl.optional(),
  TRUST_PROXY: trustProxy,
  CORS_ORIGINS: corsOrigins,

  HTTP_REQUEST_TIMEOUT_MS: milliseconds(60_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds(72_000),
  HTTP_CONNECTION_TIMEOUT_MS: milliseconds(120_000),
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: milliseconds(1000),
  /** Off by default (decision FS2): a busy loop that still answers in time is not overload. */
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: z.coerce.number().min(0).max(1).default(0),
  OVERLOAD_MAX_HEAP_USED_BYTES: z.coerce.number().int().min(0).default(0),

  REDIS_URL: redisUrl.optional(),
  /** `host:port,host:port,…`: seed nodes of a Redis Cluster, instead of REDIS_URL (decision R1). */
  REDIS_CLUSTER_NODES: redisClusterNodes.optional(),
  REDIS_KEY_PREFIX: z.string().default('nestegg:'),
  /** TLS to Redis (as `rediss://`); for a cluster, the only way to ask for it. */
  REDIS_TLS: booleanFlag(false),
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),

  SESSION_TTL_HOURS: positiveInt(24, 24 * 30),
  /** Default: a core fewer than the machine has, a libuv pool thread fewer than libuv's (decision FS1). */
  PASSWORD_HASH_CONCURRENCY: positiveInt(defaultPasswordHashConcurrency(), 64),
  PASSWORD_HASH_MAX_QUEUED: z.coerce.number().int().min(0).max(10_000).default(32),
  PASSWORD_HASH_MAX_WAIT_MS: milliseconds(2000),
  APP_TIMEZONE: timeZone(),
  PROFILE_IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(512 * 1024),
  API_DOCS_ENABLED: booleanFlag(true),
  /** libvips threads per image (sharp's concurrency): 1 whatever the allocator or the cores (decision DL20). */
  IMAGE_THREADS: positiveInt(1, 64),
  /** libvips' operation cache, in MB; 0 (default): off, every upload is new bytes (decision DL20). */
  IMAGE_CACHE_MB: z.coerce.number().int().min(0).max(1024).default(0),

  IDPONE_CLIENT_ID: z.string().optional(),
  IDPONE_JWKS_URL: httpUrl.optional(),
  IDPONE_ISSUERS: commaList,
  IDPTWO_CLIENT_ID: z.string().optional(),
  IDPTWO_JWKS_URL: httpUrl.optional(),
  IDPTWO_ISSUER: z.string().optional(),

  ACCOUNT_NUMBER_KEYS: encryptionKeys,
  ACCOUNT_NUMBER_KEY_ID: z.string().optional(),
  FX_API_URL: httpUrl.optional(),
  FX_API_KEY: z.string().optional(),
  FX_TIMEOUT_MS: milliseconds(5000),
  /** Google Cloud Vision `images:annotate`, e.g. `https://vision.googleapis.com`; the key is sent as `x-goog-api-key`. */
  OCR_API_URL: httpUrl.optional(),
  OCR_API_KEY: z.string().optional(),
  OCR_TIMEOUT_MS: milliseconds(15_000),
  /** Recognitions per member and day (APP_TIMEZONE days); each costs a provider call. */
  OCR_DAILY_QUOTA: positiveInt(50, 100_000),
  OCR_RATE_LIMIT_PER_MINUTE: positiveInt(10, 10_000),
  /** Statement import (decisions SI3, SI7, SI8). */
  IMPORT_MATCH_WINDOW_DAYS: z.coerce.number().int().min(0).max(31).default(3),
  IMPORT_UNDO_HOURS: positiveInt(168, 24 * 90),
  IMPORT_DAILY_UPLOADS_FREE: positiveInt(5, 10_000),
  IMPORT_DAILY_UPLOADS_PREMIUM: positiveInt(50, 10_000),
  /** The share of the time a preview's or commit's batches may work while other requests arrive (decision P35). */
  // At least 0.1: a pause is then at most nine times its step, so an import under steady load still finishes.
  IMPORT_BUSY_SHARE: z.coerce.number().min(0.1).max(1).default(0.5),
  /** Alpha Vantage `GLOBAL_QUOTE`, e.g. `https://www.alphavantage.co`. */
  QUOTE_API_URL: httpUrl.optional(),
  QUOTE_API_KEY: z.string().optional(),
  QUOTE_TIMEOUT_MS: milliseconds(5000),
  /** A quote younger than this is served from the shared cache without asking the provider. */
  QUOTE_MAX_AGE_SECONDS: positiveInt(60, 86_400),
  /** Largest restore body (a backup of 200,000 entries is about 28 MB); other bodies keep the 2 MiB limit. */
  RESTORE_MAX_BYTES: positiveInt(64 * 1024 * 1024, 1024 * 1024 * 1024),
  /** Board images a member may upload in any 24 hours (429 `IMAGE_QUOTA_EXCEEDED` beyond). */
  BOARD_IMAGE_QUOTA_PER_DAY: positiveInt(50, 100_000),
  /** Stored bytes of board images a member may upload in any 24 hours. */
  BOARD_IMAGE_QUOTA_BYTES_PER_DAY: z.coerce
    .number()
    .int()
    .min(8 * 1024 * 1024)
    .default(100 * 1024 * 1024),
  BOARD_IMAGE_RATE_LIMIT_PER_MINUTE: positiveInt(10, 10_000),
  /** A report counts toward the automatic block only from accounts this many days old; 0: every report counts (BD28). */
  BOARD_REPORTER_MIN_AGE_DAYS: z.coerce.number().int().min(0).max(3650).default(REPORT_COUNTING_MIN_ACCOUNT_AGE_DAYS),
};

/** Metrics must never be served on the public port. */
function metricsOffThePublicPort(env: { PORT: number; METRICS_PORT: number }, context: z.RefinementCtx) {
  if (env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
    context.addIssue({ code: 'custom', path: ['METRICS_PORT'], message: 'must differ from PORT (or be 0: off)' });
  }
}

/** One Redis or a cluster, never both; a cluster's key prefix must not carry a hash tag of its own (R2). */
function oneRedisTopology(
  env: { REDIS_URL?: string | undefined; REDIS_CLUSTER_NODES?: unknown; REDIS_KEY_PREFIX: string },
  context: z.RefinementCtx,
) {
  if (env.REDIS_URL && env.REDIS_CLUSTER_NODES) {
    for (const path of ['REDIS_URL', 'REDIS_CLUSTER_NODES']) {
      context.addIssue({
        code: 'custom',
        path: [path],
        message:
          'REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis, REDIS_CLUSTER_NODES for a cluster',
      });
    }
  }
  if (env.REDIS_CLUSTER_NODES && /[{}]/.test(env.REDIS_KEY_PREFIX)) {
    context.addIssue({
      code: 'custom',
      path: ['REDIS_KEY_PREFIX'],
      message:
        'must not contain { or } with REDIS_CLUSTER_NODES (a hash tag in the prefix would put every key on one shard)',
    });
  }
}

/** The key for new encryptions must be one of the configured keys. */
function currentKeyIsConfigured(
  env: { ACCOUNT_NUMBER_KEYS: { id: string }[]; ACCOUNT_NUMBER_KEY_ID?: string | undefined },
  context: z.RefinementCtx,
) {
  const current = env.ACCOUNT_NUMBER_KEY_ID;
  if (current && !env.ACCOUNT_NUMBER_KEYS.some((key) => key.id === current)) {
    context.addIssue({
      code: 'custom',
      path: ['ACCOUNT_NUMBER_KEY_ID'],
      message: 'must name one of the ACCOUNT_NUMBER_KEYS',
    });
  }
}

export const envSchema = z
  .object(shape)
  .superRefine(
    requireWholeGroups([
      ...Object.values(identityProviderGroups),
      ...Object.values(ledgerFeatureGroups),
      storeGroup,
      storePushGroup,
      appStoreGroup,
    ]),
  )
  .superRefine(refuseTestModeInProduction)
  .superRefine(currentKeyIsConfigured)
  .superRefine(metricsOffThePublicPort)
  .superRefine(oneRedisTopology)
  .superRefine(requireDirectUrlBehindPooler);
export type Env = z.output<typeof envSchema>;
export { InvalidEnvironmentError } from '@nestegg/config';

const keys = Object.keys(shape);

/** Parses the environment once; throws an `InvalidEnvironmentError` naming every bad variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnvironment(envSchema, keys, source);
}

/** For the entry point: prints every bad variable and exits. */
export function loadEnvOrExit(): Env {
  return loadEnvironmentOrExit('nestegg-api', envSchema, keys);
}

/** Where the metrics listener binds: METRICS_HOST, else where the api listens. */
export function metricsHostOf(env: Env): string {
  return env.METRICS_HOST ?? env.HOST;
}

export function publicUrlOf(env: Env): string {
  return (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '');
}

export function isProviderConfigured(env: Env, provider: keyof typeof identityProviderGroups): boolean {
  return isGroupConfigured(env, identityProviderGroups[provider]);
}
