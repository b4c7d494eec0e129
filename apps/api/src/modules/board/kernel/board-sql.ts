import { HOT_MIN_UP_VOTES, HOT_WINDOW_HOURS, MAX_OFFSET_ROWS } from '@nestegg/contract';
import { type SQL, sql } from 'drizzle-orm';
import { BadRequestError } from '../../../lib/errors.js';

/**
 * Hot: created within the window with enough up votes. The threshold is written as a literal so the
 * planner matches the partial `… where up_count >= 50` indexes of posts and comments.
 */
export function isHot(alias: string): SQL<boolean> {
  return sql<boolean>`(${sql.raw(`${alias}.up_count >= ${HOT_MIN_UP_VOTES}`)} and ${sql.raw(
    `${alias}.created_at > now() - interval '${HOT_WINDOW_HOURS} hours'`,
  )})`;
}

/** Offset pages stop at MAX_OFFSET_ROWS; deeper pages are read with the cursor. */
export function assertOffsetAllowed(page: number, size: number, cursor: string | undefined): void {
  if (cursor === undefined && page * size > MAX_OFFSET_ROWS) {
    throw new BadRequestError('OFFSET_TOO_DEEP', `Pages deeper than ${MAX_OFFSET_ROWS} rows are read with cursor.`);
  }
}

/** The rows of a page and whether a next one exists (a page reads one row more than it shows). */
export function pageOf<T>(rows: T[], size: number): { items: T[]; hasMore: boolean } {
  return { items: rows.slice(0, size), hasMore: rows.length > size };
}
