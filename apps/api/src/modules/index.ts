import type { FastifyPluginAsync } from 'fastify';
import adminModule from './admin/routes.js';
import authModule from './auth/routes.js';
import budgetsModule from './budgets/routes.js';
import categoriesModule from './categories/routes.js';
import changesModule from './changes/routes.js';
import entriesModule from './entries/routes.js';
import exchangeRatesModule from './exchange-rates/routes.js';
import investmentsModule from './investments/routes.js';
import quickEntriesModule from './quick-entries/routes.js';
import receiptsModule from './receipts/routes.js';
import recurringsModule from './recurrings/routes.js';
import statisticsModule from './statistics/routes.js';
import tagsModule from './tags/routes.js';
import walletsModule from './wallets/routes.js';

/**
 * The domains the api serves, one module each. A route whose issue has not landed is not registered, so
 * it answers 404 rather than pretending to work.
 */
export const modules: FastifyPluginAsync[] = [
  authModule,
  adminModule,
  entriesModule,
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
];
