import type { SpamKeyword } from '@nestegg/contract';
import { type Database, spamKeyword } from '@nestegg/db';
import { asc, eq } from 'drizzle-orm';
import { ConflictError, NotFoundError, ValidationFailedError } from '../../../lib/errors.js';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import { spamSkeleton } from './normalize.js';
import { keywordSkeleton } from './spam-filter.js';

type SpamKeywordRow = typeof spamKeyword.$inferSelect;

const toSpamKeyword = (row: SpamKeywordRow): SpamKeyword => ({
  id: row.id,
  keyword: row.keyword,
  createdAt: row.createdAt.toISOString(),
});

const duplicate = () => new ConflictError('DUPLICATE_SPAM_KEYWORD', 'The list already holds this keyword.');

/** The admin-managed spam keyword list (the filter itself is `containsSpam`). */
export class SpamKeywordsService {
  constructor(private readonly deps: { db: Database }) {}

  async list(): Promise<SpamKeyword[]> {
    const rows = await this.deps.db.select().from(spamKeyword).orderBy(asc(spamKeyword.normalized));
    return rows.map(toSpamKeyword);
  }

  /**
   * A keyword whose skeleton is an existing keyword's is a duplicate (409). The skeletons are compared from
   * the keywords as entered (rows stored before BD27 hold an older `normalized` form); the unique key on
   * `normalized` settles two additions at once.
   */
  async add(keyword: string): Promise<SpamKeyword> {
    const normalized = spamSkeleton(keyword);
    if (normalized === '') {
      throw new ValidationFailedError([
        { path: 'body.keyword', message: 'nothing is left once normalised (a keyword needs a letter or a digit)' },
      ]);
    }
    // `c++` or `#1` would leave one letter, which nearly every text holds.
    if ([...normalized].length === 1 && [...keyword.trim()].length > 1) {
      throw new ValidationFailedError([
        { path: 'body.keyword', message: 'only one letter or digit is left once normalised' },
      ]);
    }
    const existing = await this.deps.db.select({ keyword: spamKeyword.keyword }).from(spamKeyword);
    if (existing.some((row) => keywordSkeleton(row.keyword) === normalized)) throw duplicate();
    try {
      const [row] = await this.deps.db.insert(spamKeyword).values({ keyword, normalized }).returning();
      return toSpamKeyword(row!);
    } catch (error) {
      if (pgErrorCode(error) === UNIQUE_VIOLATION) throw duplicate();
      throw error;
    }
  }

  async delete(id: number): Promise<void> {
    const deleted = await this.deps.db
      .delete(spamKeyword)
      .where(eq(spamKeyword.id, id))
      .returning({ id: spamKeyword.id });
    if (deleted.length === 0) throw new NotFoundError('spam keyword');
  }
}
