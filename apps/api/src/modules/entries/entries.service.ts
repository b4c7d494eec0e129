import type { Database } from '@nestegg/db';
import type { Clock } from '../../infrastructure.js';
import type { PointsService } from '../points/points.service.js';

export interface EntriesDeps {
  db: Database;
  clock: Clock;
  points: PointsService;
  /** `APP_TIMEZONE`: whose calendar decides "the current month" of the month-complete bonus. */
  timeZone: string;
}

/** Ledger entries (placeholder until implemented). */
export class EntriesService {
  constructor(readonly deps: EntriesDeps) {}
}
