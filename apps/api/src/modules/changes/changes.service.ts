import type { Database } from '@nestegg/db';

/** Delta sync (placeholder until implemented). */
export class ChangesService {
  constructor(readonly deps: { db: Database }) {}
}
