import type { Infrastructure } from './infrastructure.js';
import { DefaultCategoryService } from './modules/admin/default-categories.service.js';
import { MemberAdministration } from './modules/admin/members.service.js';
import { AccountDeletion } from './modules/auth/account-deletion.js';
import { AttemptLimits } from './modules/auth/attempt-limits.js';
import { CredentialsService } from './modules/auth/credentials.service.js';
import { providerConfig } from './modules/auth/identity-providers.js';
import { PasswordHasher } from './modules/auth/passwords.js';
import { ProfileService } from './modules/auth/profile.service.js';
import { ProviderSignInService } from './modules/auth/provider-sign-in.service.js';
import { SessionStore } from './modules/auth/session.store.js';
import { BudgetsService } from './modules/budgets/budgets.service.js';
import { CategoriesService } from './modules/categories/categories.service.js';
import { ChangesService } from './modules/changes/changes.service.js';
import { syncRenderers } from './modules/changes/sync-renderers.js';
import { EntriesService } from './modules/entries/entries.service.js';
import { ExchangeRatesService } from './modules/exchange-rates/exchange-rates.service.js';
import { investmentServices } from './modules/investments/compose.js';
import { PointsService } from './modules/points/points.service.js';
import { QuickEntriesService } from './modules/quick-entries/quick-entries.service.js';
import { receiptsService } from './modules/receipts/compose.js';
import { RecurringsService } from './modules/recurrings/recurrings.service.js';
import { AppSettings } from './modules/settings/app-settings.js';
import { StatisticsService } from './modules/statistics/statistics.service.js';
import { TagsService } from './modules/tags/tags.service.js';
import { AccountNumberCipher } from './modules/wallets/account-numbers.js';
import { WalletsService } from './modules/wallets/wallets.service.js';

/**
 * The composition root: every service, built once from the infrastructure, each given exactly the
 * dependencies it uses. The api exposes the result as `app.services`; the admin command line builds the
 * same object, so both run the same code the same way.
 */
export function createServices(infrastructure: Infrastructure) {
  const { env, db, sql, redis, attempts, logger, clock } = infrastructure;
  const sessions = new SessionStore({ db, sql, redis, logger, clock, ttlSeconds: env.SESSION_TTL_HOURS * 3600 });
  const settings = new AppSettings({ db });
  const accountDeletion = new AccountDeletion({ db, sessions });
  const limits = new AttemptLimits({ attempts, logger, clock });
  const hasher = new PasswordHasher({
    concurrency: env.PASSWORD_HASH_CONCURRENCY,
    maxQueued: env.PASSWORD_HASH_MAX_QUEUED,
    maxWaitMs: env.PASSWORD_HASH_MAX_WAIT_MS,
  });
  const points = new PointsService({ timeZone: env.APP_TIMEZONE });
  return {
    clock,
    sessions,
    settings,
    accountDeletion,
    points,
    hasher,
    credentials: new CredentialsService({ db, sessions, settings, limits, hasher, logger }),
    profiles: new ProfileService({ db, sessions, profileImageMaxBytes: env.PROFILE_IMAGE_MAX_BYTES }),
    providerSignIn: new ProviderSignInService({
      db,
      sessions,
      limits,
      logger,
      clock,
      providers: { IDPONE: providerConfig(env, 'IDPONE'), IDPTWO: providerConfig(env, 'IDPTWO') },
    }),
    members: new MemberAdministration({ db, sessions, accountDeletion, hasher }),
    defaultCategories: new DefaultCategoryService({ db }),
    ...createLedgerServices(infrastructure, points),
  };
}

/** The ledger's services (issue 9 and later). */
function createLedgerServices(infrastructure: Infrastructure, points: PointsService) {
  const { env, db, logger, clock } = infrastructure;
  const timeZone = env.APP_TIMEZONE;
  const accountNumbers = new AccountNumberCipher({
    keys: env.ACCOUNT_NUMBER_KEYS,
    currentKeyId: env.ACCOUNT_NUMBER_KEY_ID ?? null,
  });
  const fxProvider =
    env.FX_API_URL && env.FX_API_KEY
      ? { baseUrl: env.FX_API_URL, apiKey: env.FX_API_KEY, timeoutMs: env.FX_TIMEOUT_MS }
      : null;
  return {
    entries: new EntriesService({ db, clock, points, logger, timeZone }),
    quickEntries: new QuickEntriesService({ db }),
    accountNumbers,
    wallets: new WalletsService({ db, clock, accountNumbers, timeZone }),
    categories: new CategoriesService({ db }),
    tags: new TagsService({ db }),
    recurrings: new RecurringsService({ db, clock, timeZone }),
    exchangeRates: new ExchangeRatesService({ db, clock, logger, provider: fxProvider, timeZone }),
    budgets: new BudgetsService({ db }),
    statistics: new StatisticsService({ db, clock, timeZone }),
    changes: new ChangesService({ db, render: syncRenderers({ accountNumbers, clock, timeZone }) }),
    ...investmentServices(infrastructure),
    receipts: receiptsService(infrastructure),
  };
}

export type Services = ReturnType<typeof createServices>;
