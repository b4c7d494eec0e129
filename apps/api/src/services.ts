import { REPORTS_TO_BLOCK } from '@nestegg/contract';
import { publicUrlOf } from './env.js';
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
import { AvatarsService } from './modules/avatars/avatars.service.js';
import { BackupService } from './modules/backup/backup.service.js';
import { RestoreParser } from './modules/backup/restore-parser.js';
import { billingServices } from './modules/billing/compose.js';
import { boardImagesService } from './modules/board-images/compose.js';
import { BudgetsService } from './modules/budgets/budgets.service.js';
import { CardNotificationsService } from './modules/card-notifications/card-notifications.service.js';
import { CategoriesService } from './modules/categories/categories.service.js';
import { ChangesService } from './modules/changes/changes.service.js';
import { syncRenderers } from './modules/changes/sync-renderers.js';
import { CommentsService } from './modules/comments/comments.service.js';
import { EntriesService } from './modules/entries/entries.service.js';
import { ExchangeRatesService } from './modules/exchange-rates/exchange-rates.service.js';
import { investmentServices } from './modules/investments/compose.js';
import { ModerationService } from './modules/moderation/moderation.service.js';
import { PointsService } from './modules/points/points.service.js';
import { PostsService } from './modules/posts/posts.service.js';
import { QuickEntriesService } from './modules/quick-entries/quick-entries.service.js';
import { receiptsService } from './modules/receipts/compose.js';
import { RecurringsService } from './modules/recurrings/recurrings.service.js';
import { AppSettings } from './modules/settings/app-settings.js';
import { SpamKeywordsService } from './modules/spam/spam-keywords.service.js';
import { StatisticsService } from './modules/statistics/statistics.service.js';
import { TagGroupsService } from './modules/tag-groups/tag-groups.service.js';
import { TagsService } from './modules/tags/tags.service.js';
import { VotesService } from './modules/votes/votes.service.js';
import { AccountNumberCipher } from './modules/wallets/account-numbers.js';
import { WalletsService } from './modules/wallets/wallets.service.js';

/**
 * The composition root: every service, built once from the infrastructure, each given exactly the
 * dependencies it uses. The api exposes the result as `app.services`; the admin command line builds the
 * same object, so both run the same code the same way.
 */
export function createServices(infrastructure: Infrastructure) {
  const { env, db, sql, redis, attempts, logger, clock, metrics } = infrastructure;
  const sessions = new SessionStore({
    db,
    sql,
    redis,
    logger,
    clock,
    ttlSeconds: env.SESSION_TTL_HOURS * 3600,
    recordLookup: (result) => metrics.sessionLookups.inc({ result }),
  });
  const settings = new AppSettings({ db });
  const accountDeletion = new AccountDeletion({ db, sessions });
  const limits = new AttemptLimits({ attempts, logger, clock });
  const hasher = new PasswordHasher({
    concurrency: env.PASSWORD_HASH_CONCURRENCY,
    maxQueued: env.PASSWORD_HASH_MAX_QUEUED,
    maxWaitMs: env.PASSWORD_HASH_MAX_WAIT_MS,
    recordWait: (seconds) => metrics.passwordHashWait.observe(seconds),
    recordShed: (reason) => metrics.shedRequests.inc({ reason }),
  });
  metrics.observe(
    'nestegg_password_hash_queue_depth',
    'Password hashes waiting for a hashing slot',
    () => hasher.queued,
  );
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
    ...billingServices(infrastructure, sessions),
    ...createBoardServices(infrastructure, points),
    ...createLedgerServices(infrastructure, points),
  };
}

/** The board's services: posts, comments, votes, moderation, spam keywords, images, tag groups and avatars. */
function createBoardServices(infrastructure: Infrastructure, points: PointsService) {
  const { env, db, clock } = infrastructure;
  const publicUrl = publicUrlOf(env);
  return {
    votes: new VotesService({ db, points, publicUrl }),
    avatars: new AvatarsService({ db }),
    spamKeywords: new SpamKeywordsService({ db }),
    posts: new PostsService({ db, points, publicUrl }),
    comments: new CommentsService({ db, points, publicUrl }),
    moderation: new ModerationService({
      db,
      clock,
      publicUrl,
      reportsToBlock: REPORTS_TO_BLOCK,
      countingMinAccountAgeDays: env.BOARD_REPORTER_MIN_AGE_DAYS,
    }),
    boardImages: boardImagesService(infrastructure),
    tagGroups: new TagGroupsService({ db }),
  };
}

/**
 * The ledger's services: entries, quick entries, wallets, categories, tags, recurrings, exchange rates, card
 * notifications, budgets, statistics, the delta feed, investments, receipts and backup.
 */
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
  const exchangeRates = new ExchangeRatesService({ db, clock, logger, provider: fxProvider, timeZone });
  return {
    entries: new EntriesService({ db, clock, points, logger, timeZone }),
    quickEntries: new QuickEntriesService({ db }),
    accountNumbers,
    wallets: new WalletsService({ db, clock, accountNumbers, timeZone }),
    categories: new CategoriesService({ db }),
    tags: new TagsService({ db }),
    recurrings: new RecurringsService({ db, clock, timeZone }),
    exchangeRates,
    cardNotifications: new CardNotificationsService({
      db,
      clock,
      exchangeRates,
      accountNumbers,
      points,
      logger,
      timeZone,
    }),
    budgets: new BudgetsService({ db }),
    statistics: new StatisticsService({ db, clock, timeZone }),
    changes: new ChangesService({ db, render: syncRenderers({ accountNumbers, clock, timeZone }) }),
    ...investmentServices(infrastructure),
    receipts: receiptsService(infrastructure),
    backup: new BackupService({
      db,
      clock,
      accountNumbers,
      timeZone,
      parser: restoreParser(env.RESTORE_MAX_BYTES),
      maxConcurrent: BACKUPS_AT_ONCE,
    }),
  };
}

/** Restores, and exports, at once per api process: each holds a database connection throughout. */
const BACKUPS_AT_ONCE = 2;

/** The restore worker: heap for the objects of the largest body (about 16 bytes per byte of JSON, at least 512 MB). */
function restoreParser(maxBytes: number): RestoreParser {
  return new RestoreParser({ maxQueued: 2, maxHeapMb: Math.max(512, Math.ceil((16 * maxBytes) / (1024 * 1024))) });
}

export type Services = ReturnType<typeof createServices>;
