import { REPORTS_TO_BLOCK } from '@nestegg/contract';
import { publicUrlOf } from './env.js';
import type { Infrastructure } from './lib/infrastructure.js';
import { DefaultCategoryService } from './modules/admin/default-categories/index.js';
import { MemberAdministration } from './modules/admin/members/index.js';
import { AppSettings } from './modules/admin/settings/index.js';
import { billingServices } from './modules/billing/membership/index.js';
import { CommentsService } from './modules/board/comments/index.js';
import { boardImagesService } from './modules/board/images/index.js';
import { ModerationService } from './modules/board/moderation/index.js';
import { PostsService } from './modules/board/posts/index.js';
import { SpamKeywordsService } from './modules/board/spam/index.js';
import { TagGroupsService } from './modules/board/tag-groups/index.js';
import { VotesService } from './modules/board/votes/index.js';
import { BackupService, RestoreParser } from './modules/ledger/backup/index.js';
import { BudgetsService } from './modules/ledger/budgets/index.js';
import { CardNotificationsService } from './modules/ledger/card-notifications/index.js';
import { CategoriesService } from './modules/ledger/categories/index.js';
import { ChangesService, syncRenderers } from './modules/ledger/changes/index.js';
import { EntriesService, PendingEntries } from './modules/ledger/entries/index.js';
import { ExchangeRatesService } from './modules/ledger/exchange-rates/index.js';
import { statementImportsService } from './modules/ledger/imports/index.js';
import { investmentServices } from './modules/ledger/investments/index.js';
import { QuickEntriesService } from './modules/ledger/quick-entries/index.js';
import { receiptsService } from './modules/ledger/receipts/index.js';
import { RecurringsService } from './modules/ledger/recurrings/index.js';
import { StatisticsService } from './modules/ledger/statistics/index.js';
import { TagsService } from './modules/ledger/tags/index.js';
import { AccountNumberCipher, WalletsService } from './modules/ledger/wallets/index.js';
import {
  AccountDeletion,
  AttemptLimits,
  CredentialsService,
  PasswordHasher,
  ProfileService,
  ProviderSignInService,
  providerConfig,
  SessionStore,
} from './modules/members/auth/index.js';
import { AvatarsService } from './modules/members/avatars/index.js';
import { PointsService } from './modules/members/points/index.js';

/**
 * The composition root: every service, built once from the infrastructure, each given exactly the
 * dependencies it uses. The api exposes the result as `app.services`; the admin command line builds the
 * same object, so both run the same code the same way.
 */
export function createServices(infrastructure: Infrastructure) {
  const { env, db, reader, sql, listener, redis, attempts, logger, clock, metrics } = infrastructure;
  const sessions = new SessionStore({
    db,
    sql,
    listener,
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
    members: new MemberAdministration({ db, reader, sessions, accountDeletion, hasher }),
    defaultCategories: new DefaultCategoryService({ db }),
    ...billingServices(infrastructure, sessions),
    ...createBoardServices(infrastructure, points),
    ...createLedgerServices(infrastructure, points),
  };
}

/** The board's services: posts, comments, votes, moderation, spam keywords, images, tag groups and avatars. */
function createBoardServices(infrastructure: Infrastructure, points: PointsService) {
  const { env, db, reader, clock } = infrastructure;
  const publicUrl = publicUrlOf(env);
  return {
    votes: new VotesService({ db, points, publicUrl }),
    avatars: new AvatarsService({ db }),
    spamKeywords: new SpamKeywordsService({ db }),
    posts: new PostsService({ db, reader, points, publicUrl }),
    comments: new CommentsService({ db, reader, points, publicUrl }),
    moderation: new ModerationService({
      db,
      clock,
      publicUrl,
      reportsToBlock: REPORTS_TO_BLOCK,
      countingMinAccountAgeDays: env.BOARD_REPORTER_MIN_AGE_DAYS,
    }),
    boardImages: boardImagesService(infrastructure),
    tagGroups: new TagGroupsService({ db, reader }),
  };
}

/**
 * The ledger's services: entries, quick entries, wallets, categories, tags, recurrings, exchange rates, card
 * notifications, statement imports, budgets, statistics, the delta feed, investments, receipts and backup.
 */
function createLedgerServices(infrastructure: Infrastructure, points: PointsService) {
  const { env, db, reader, logger, clock } = infrastructure;
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
    entries: new EntriesService({ db, reader, clock, points, logger, timeZone }),
    quickEntries: new QuickEntriesService({ db, reader }),
    accountNumbers,
    wallets: new WalletsService({ db, reader, clock, accountNumbers, timeZone }),
    categories: new CategoriesService({ db, reader }),
    tags: new TagsService({ db, reader }),
    recurrings: new RecurringsService({ db, reader, clock, timeZone }),
    exchangeRates,
    statementImports: statementImportsService(infrastructure, exchangeRates),
    cardNotifications: new CardNotificationsService({
      db,
      clock,
      pendingEntries: new PendingEntries({ db, clock, points, logger, timeZone }),
      exchangeRates,
      accountNumbers,
      timeZone,
    }),
    budgets: new BudgetsService({ db, reader }),
    statistics: new StatisticsService({ reader, clock, timeZone }),
    changes: new ChangesService({ db, reader, render: syncRenderers({ accountNumbers, clock, timeZone }) }),
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
