import type { Database } from '@nestegg/db';
import type { Clock } from '../../infrastructure.js';

export interface RecurringsDeps {
  db: Database;
  clock: Clock;
  /** `APP_TIMEZONE`: the calendar of occurrences. */
  timeZone: string;
}

/** Recurring transactions (placeholder until implemented). */
export class RecurringsService {
  constructor(readonly deps: RecurringsDeps) {}
}
