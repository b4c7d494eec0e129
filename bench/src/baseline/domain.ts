/**
 * The pure ledger rules (@nestegg/domain: the calendar, periods, loan schedules, recurrence) the api shares with
 * the worker. A baseline does what the api does without its framework, and these are the work itself, not
 * framework: it calls them as the api does. The bench has no workspace dependency on the package (it would
 * touch the root lockfile), so they come from its source, as tsx runs every workspace package.
 */
export {
  addDays,
  addMonths,
  creditLineOf,
  dateIn,
  type LoanTerms,
  type MonthSpan,
  monthOf,
  monthSpan,
  monthsEndingAt,
  nextOccurrence,
  outstandingPrincipal,
  type Period,
  startOfMonth,
  trailingPeriods,
} from '../../../packages/domain/src/index.js';

/** The api's APP_TIMEZONE in the bench: the child starts it without one, so the default. */
export const API_TIME_ZONE = 'UTC';
