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
import { PointsService } from './modules/points/points.service.js';
import { AppSettings } from './modules/settings/app-settings.js';

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
  return {
    clock,
    sessions,
    settings,
    accountDeletion,
    points: new PointsService({ timeZone: env.APP_TIMEZONE }),
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
  };
}

export type Services = ReturnType<typeof createServices>;
