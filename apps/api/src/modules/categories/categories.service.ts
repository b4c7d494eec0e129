import type { Database } from '@nestegg/db';

/** Member categories (placeholder until implemented). */
export class CategoriesService {
  constructor(readonly deps: { db: Database }) {}
}
