import type { FastifyPluginAsync } from 'fastify';
import { defaultCategoriesRoutes } from './admin/default-categories/index.js';
import { memberAdministrationRoutes } from './admin/members/index.js';
import { settingsRoutes } from './admin/settings/index.js';
import { membershipRoutes } from './billing/membership/index.js';
import { commentsRoutes } from './board/comments/index.js';
import { boardImagesRoutes } from './board/images/index.js';
import { moderationRoutes } from './board/moderation/index.js';
import { postsRoutes } from './board/posts/index.js';
import { spamRoutes } from './board/spam/index.js';
import { tagGroupsRoutes } from './board/tag-groups/index.js';
import { votesRoutes } from './board/votes/index.js';
import { backupRoutes } from './ledger/backup/index.js';
import { budgetsRoutes } from './ledger/budgets/index.js';
import { cardNotificationsRoutes } from './ledger/card-notifications/index.js';
import { categoriesRoutes } from './ledger/categories/index.js';
import { changesRoutes } from './ledger/changes/index.js';
import { entriesRoutes } from './ledger/entries/index.js';
import { exchangeRatesRoutes } from './ledger/exchange-rates/index.js';
import { importsRoutes } from './ledger/imports/index.js';
import { investmentsRoutes } from './ledger/investments/index.js';
import { quickEntriesRoutes } from './ledger/quick-entries/index.js';
import { receiptsRoutes } from './ledger/receipts/index.js';
import { recurringsRoutes } from './ledger/recurrings/index.js';
import { statisticsRoutes } from './ledger/statistics/index.js';
import { tagsRoutes } from './ledger/tags/index.js';
import { walletsRoutes } from './ledger/wallets/index.js';
import { authRoutes } from './members/auth/index.js';
import { avatarsRoutes } from './members/avatars/index.js';

/**
 * The routes the api serves, by area as the contract groups them (members, ledger, board, billing, admin); each
 * module registers its own. Together they serve every route of the contract (guards.test.ts).
 */
export const modules: FastifyPluginAsync[] = [
  // members
  authRoutes,
  avatarsRoutes,
  // ledger
  entriesRoutes,
  cardNotificationsRoutes,
  importsRoutes,
  quickEntriesRoutes,
  walletsRoutes,
  categoriesRoutes,
  tagsRoutes,
  recurringsRoutes,
  exchangeRatesRoutes,
  changesRoutes,
  investmentsRoutes,
  receiptsRoutes,
  budgetsRoutes,
  statisticsRoutes,
  backupRoutes,
  // board
  postsRoutes,
  commentsRoutes,
  spamRoutes,
  votesRoutes,
  moderationRoutes,
  boardImagesRoutes,
  tagGroupsRoutes,
  // billing
  membershipRoutes,
  // admin
  memberAdministrationRoutes,
  settingsRoutes,
  defaultCategoriesRoutes,
];
