import {
  monthBudgetsBaseline,
  monthlyBaseline,
  topMerchantsBaseline,
  trendBaseline,
  yearlyBaseline,
} from '../baseline/statistics.js';
import { budgetMonth, LEDGER_MEMBER_EMAIL, ledgerDataset } from '../datasets/ledger.js';
import { LIST_TARGETS } from './targets.js';
import type { BenchRow } from './types.js';

/**
 * Statistics and the budgets screen (issue 10 rule 2: "benchmark them at 1,000,000 entries"), for the
 * bench member's household ledger while the service grows around it: every answer reads the member's own
 * rows only, so each must stay flat. The month asked for is the ledger's last complete one, the one with
 * the member's budgets.
 */

const SIZES = { quick: [10_000, 100_000], full: [10_000, 1_000_000] };

function statisticsRow(key: string, name: string, path: () => string, baseline: BenchRow['baseline']): BenchRow {
  return {
    key,
    name,
    dataset: ledgerDataset,
    sizes: SIZES,
    redis: 'up',
    targets: LIST_TARGETS,
    request: async (setup) => ({ method: 'GET', path: path(), headers: await setup.bearer(LEDGER_MEMBER_EMAIL) }),
    baseline,
  };
}

export const statisticsRows: BenchRow[] = [
  statisticsRow(
    'stats.monthly',
    'GET /api/account/stats/monthly',
    () => `/api/account/stats/monthly?year=${budgetMonth().year}&month=${budgetMonth().month}`,
    monthlyBaseline,
  ),
  statisticsRow(
    'stats.yearly',
    'GET /api/account/stats/yearly',
    () => `/api/account/stats/yearly?year=${budgetMonth().year}`,
    yearlyBaseline,
  ),
  statisticsRow(
    'stats.trend',
    'GET /api/account/stats/trend 12 months',
    () => '/api/account/stats/trend?months=12',
    trendBaseline,
  ),
  statisticsRow(
    'stats.merchants',
    'GET /api/account/stats/merchants one month',
    () => `/api/account/stats/merchants?from=${budgetMonth().first}&to=${budgetMonth().last}`,
    topMerchantsBaseline,
  ),
  statisticsRow(
    'budgets.month',
    'GET /api/account/budgets (10 budgets)',
    () => `/api/account/budgets?year=${budgetMonth().year}&month=${budgetMonth().month}`,
    monthBudgetsBaseline,
  ),
];
