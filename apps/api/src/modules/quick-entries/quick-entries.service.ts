import type { Database } from '@nestegg/db';

/** Quick-entry templates (placeholder until implemented). */
export class QuickEntriesService {
  constructor(readonly deps: { db: Database }) {}
}
