import { type SQL, sql } from 'drizzle-orm';
import { BadRequestError } from './errors.js';

/** The reorder routes' shared pieces (categories, default categories, tags, tag groups): SQL and the refusal. */

/**
 * Ids as one `int[]` parameter (an array literal of validated integers): one statement text whatever
 * the length, so its prepared statement is reused.
 */
export const intArray = (ids: number[]): SQL => sql`${`{${ids.join(',')}}`}::int[]`;

/** `unnest(<ids>) with ordinality as o(id, ord)`: the ids with their 1-based position. */
export const idsWithOrdinality = (ids: number[]): SQL => sql`unnest(${intArray(ids)}) with ordinality as o(id, ord)`;

/** 400 `INVALID_REORDER`: the ids are not exactly the rows of the group being ordered. */
export const invalidReorder = (detail: string): BadRequestError => new BadRequestError('INVALID_REORDER', detail);
