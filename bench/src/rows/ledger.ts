import {
  changesBaseline,
  encodeCursor,
  entryListBaseline,
  netWorthBaseline,
  netWorthTrendBaseline,
} from '../baseline/ledger.js';
import {
  budgetMonth,
  COMMON_TERM,
  HEAVY_MEMBER_EMAIL,
  heavyLedgerDataset,
  LEDGER_MEMBER_EMAIL,
  ledgerDataset,
  MEMBER_ENTRIES,
  RARE_TERM,
} from '../datasets/ledger.js';
import { LIST_TARGETS, READ_TARGETS } from './targets.js';
import type { BenchRow, RowSetup, RowTargets } from './types.js';

/**
 * Ledger core rows (issue 9 "Performance"): the entry list (page 1, a filtered page, memo searches, a deep
 * cursor page), net worth now and its trend, and the delta sync, for a household ledger while the service
 * grows around it; then what depends on one member's own size.
 */

/** The service grows to a million entries around the bench member's 5,000. */
const SERVICE_SIZES = { quick: [10_000, 100_000], full: [10_000, 1_000_000] };
/** One member grows to 200,000 entries. */
const MEMBER_SIZES = { quick: [10_000, 100_000], full: [10_000, 200_000] };
const PAGE_SIZE = 20;
/** The largest page the entry list serves (`MAX_PAGE_SIZE`): the delta feed's yardstick. */
const WIDE_PAGE_SIZE = 100;
/** How far from the end of the member's ledger the deep cursor pages start. */
const ROWS_BEFORE_END = 100;
/** How many changes behind the member's latest the sync cursor is. */
const CHANGES_BEHIND = 300;

/**
 * Page 1 sums the whole filter (total, income, expense; decision L9), so for one growing member it grows with
 * the member's ledger by design: held to the speed and statement targets, not to flatness.
 */
const WHOLE_LEDGER_TARGETS: RowTargets = {
  minThroughputRatio: LIST_TARGETS.minThroughputRatio,
  maxStatements: LIST_TARGETS.maxStatements,
};

/** The request's path and query, found in the seeded data where needed. */
type PathOf = (setup: RowSetup, memberId: number) => Promise<string> | string;

interface RowSpec {
  key: string;
  name: string;
  path: PathOf;
  targets?: RowTargets;
  baseline?: BenchRow['baseline'];
}

async function memberIdOf(setup: RowSetup, email: string): Promise<number> {
  const [row] = await setup.sql<{ id: number }[]>`select id from member where email = ${email}`;
  if (!row) throw new Error(`no seeded member ${email}`);
  return row.id;
}

/** A GET as the member whose ledger the row reads. */
function memberGet(email: string, path: PathOf): BenchRow['request'] {
  return async (setup) => ({
    method: 'GET',
    path: await path(setup, await memberIdOf(setup, email)),
    headers: await setup.bearer(email),
  });
}

/** A row on the `ledger` dataset: the bench member's household ledger in a growing service. */
const householdRow = ({
  key,
  name,
  path,
  targets = LIST_TARGETS,
  baseline = entryListBaseline,
}: RowSpec): BenchRow => ({
  key,
  name,
  dataset: ledgerDataset,
  sizes: SERVICE_SIZES,
  redis: 'up',
  targets,
  request: memberGet(LEDGER_MEMBER_EMAIL, path),
  baseline,
});

/** A row on the `ledger-heavy` dataset: the member's own ledger grows. */
const heavyRow = ({ key, name, path, targets = LIST_TARGETS, baseline = entryListBaseline }: RowSpec): BenchRow => ({
  key,
  name: `${name} (one member's ledger)`,
  dataset: heavyLedgerDataset,
  sizes: MEMBER_SIZES,
  redis: 'up',
  targets,
  request: memberGet(HEAVY_MEMBER_EMAIL, path),
  baseline,
});

const entriesPath = (query: Record<string, string | number>) => {
  const pairs = Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]);
  return `/api/account/entries?${new URLSearchParams(pairs)}`;
};

/** A cursor page of `size` rows starting ROWS_BEFORE_END rows before the end of a ledger of `entries` (newest first). */
async function deepPage(setup: RowSetup, memberId: number, entries: number, size = PAGE_SIZE): Promise<string> {
  const [row] = await setup.sql<{ date: string; id: number }[]>`
    select entry_date::text as date, id from account_entry where member_id = ${memberId}
     order by entry_date desc, id desc offset ${Math.max(0, entries - ROWS_BEFORE_END)} limit 1`;
  if (!row) throw new Error(`member ${memberId} has no entries`);
  return entriesPath({ size, cursor: encodeCursor([row.date, row.id]) });
}

/** A sync cursor CHANGES_BEHIND changes before the member's latest. */
async function changesPath(setup: RowSetup, memberId: number): Promise<string> {
  const [counter] = await setup.sql<{ seq: string }[]>`
    select seq from member_change_counter where member_id = ${memberId}`;
  if (!counter) throw new Error(`member ${memberId} has no changes`);
  return `/api/account/changes?since=${encodeCursor([Number(counter.seq) - CHANGES_BEHIND])}`;
}

const firstPage = () => entriesPath({ page: 1, size: PAGE_SIZE });
const rareSearch = () => entriesPath({ q: RARE_TERM, size: PAGE_SIZE });
const DEEP = `cursor page (${PAGE_SIZE} rows) ${ROWS_BEFORE_END} rows before the end`;
const WIDE_PAGE_ROW = 'ledger.entries.deep-wide';
/** Issue 22: the delta feed (300 changes) as fast as a page: p50 at most 2× the 100-row cursor page's. */
const FEED_TARGETS: RowTargets = { ...LIST_TARGETS, maxP50Over: { row: WIDE_PAGE_ROW, ratio: 2 } };

export const ledgerRows: BenchRow[] = [
  householdRow({ key: 'ledger.entries.first', name: 'GET /api/account/entries page 1', path: firstPage }),
  householdRow({
    key: 'ledger.entries.filtered',
    name: 'GET /api/account/entries one month of a top-level category',
    path: () => {
      const { first, last } = budgetMonth();
      return entriesPath({ from: first, to: last, category: '식비', size: PAGE_SIZE });
    },
  }),
  householdRow({
    key: 'ledger.entries.search',
    name: `GET /api/account/entries memo search (q=${RARE_TERM}: one of the member's entries)`,
    path: rareSearch,
  }),
  householdRow({
    key: 'ledger.entries.search-common',
    // One memo in twenty of the whole service matches, and the trigram index holds every member's memos.
    name: `GET /api/account/entries memo search (q=${COMMON_TERM}: one entry in twenty)`,
    path: () => entriesPath({ q: COMMON_TERM, size: PAGE_SIZE }),
  }),
  householdRow({
    key: 'ledger.entries.deep',
    name: `GET /api/account/entries ${DEEP}`,
    path: (setup, memberId) => deepPage(setup, memberId, MEMBER_ENTRIES),
  }),
  householdRow({
    key: WIDE_PAGE_ROW,
    name: `GET /api/account/entries cursor page (${WIDE_PAGE_SIZE} rows: the last ${ROWS_BEFORE_END})`,
    path: (setup, memberId) => deepPage(setup, memberId, MEMBER_ENTRIES, WIDE_PAGE_SIZE),
  }),
  householdRow({
    key: 'ledger.networth.now',
    name: 'GET /api/account/networth',
    targets: READ_TARGETS,
    path: () => '/api/account/networth',
    baseline: netWorthBaseline,
  }),
  householdRow({
    key: 'ledger.networth.weeks',
    name: 'GET /api/account/networth/trend 13 weeks',
    path: () => '/api/account/networth/trend?unit=WEEK&weeks=13',
    baseline: netWorthTrendBaseline,
  }),
  householdRow({
    key: 'ledger.networth.months',
    name: 'GET /api/account/networth/trend 12 months',
    path: () => '/api/account/networth/trend?unit=MONTH&months=12',
    baseline: netWorthTrendBaseline,
  }),
  householdRow({
    key: 'ledger.changes',
    name: `GET /api/account/changes ${CHANGES_BEHIND} changes behind`,
    path: changesPath,
    targets: FEED_TARGETS,
    baseline: changesBaseline,
  }),
  heavyRow({
    key: 'ledger.heavy.first',
    name: 'GET /api/account/entries page 1, totals over the whole ledger',
    targets: WHOLE_LEDGER_TARGETS,
    path: firstPage,
  }),
  heavyRow({
    key: 'ledger.heavy.search',
    name: `GET /api/account/entries memo search (q=${RARE_TERM}: one entry of the ledger at every size)`,
    path: rareSearch,
  }),
  heavyRow({
    key: 'ledger.heavy.deep',
    name: `GET /api/account/entries ${DEEP}`,
    path: (setup, memberId) => deepPage(setup, memberId, setup.size),
  }),
];
