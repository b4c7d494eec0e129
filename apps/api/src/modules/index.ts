import type { FastifyPluginAsync } from 'fastify';
import adminModule from './admin/routes.js';
import authModule from './auth/routes.js';
import backupModule from './backup/routes.js';
import billingModule from './billing/routes.js';
import boardImagesModule from './board-images/routes.js';
import budgetsModule from './budgets/routes.js';
import cardNotificationsModule from './card-notifications/routes.js';
import categoriesModule from './categories/routes.js';
import changesModule from './changes/routes.js';
import commentsModule from './comments/routes.js';
import entriesModule from './entries/routes.js';
import exchangeRatesModule from './exchange-rates/routes.js';
import investmentsModule from './investments/routes.js';
import moderationModule from './moderation/routes.js';
import postsModule from './posts/routes.js';
import quickEntriesModule from './quick-entries/routes.js';
import receiptsModule from './receipts/routes.js';
import recurringsModule from './recurrings/routes.js';
import spamModule from './spam/routes.js';
import statisticsModule from './statistics/routes.js';
import tagGroupsModule from './tag-groups/routes.js';
import tagsModule from './tags/routes.js';
import votesModule from './votes/routes.js';
import walletsModule from './wallets/routes.js';

/** The domains the api serves, one module each; together they serve every route of the contract (guards.test.ts). */
export const modules: FastifyPluginAsync[] = [
  authModule,
  adminModule,
  billingModule,
  entriesModule,
  cardNotificationsModule,
  quickEntriesModule,
  walletsModule,
  categoriesModule,
  tagsModule,
  recurringsModule,
  exchangeRatesModule,
  changesModule,
  investmentsModule,
  receiptsModule,
  budgetsModule,
  statisticsModule,
  postsModule,
  commentsModule,
  spamModule,
  votesModule,
  moderationModule,
  boardImagesModule,
  tagGroupsModule,
  backupModule,
];
