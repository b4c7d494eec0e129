import type { Database } from '@nestegg/db';

/** Ledger tags (placeholder until implemented). */
export class TagsService {
  constructor(readonly deps: { db: Database }) {}
}
