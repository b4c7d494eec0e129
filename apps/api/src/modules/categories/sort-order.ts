import { type SQL, sql } from 'drizzle-orm';

/** SQL pieces of the reorder routes (categories, default categories, tags). */

/**
 * Ids as one `int[]` parameter (an array literal of validated integers): one statement text whatever
 * the length, so its prepared statement is reused.
 */
export const intArray = (ids: number[]): SQL => sql`${`{${ids.join(',')}}`}::int[]`;

/** `unnest(<ids>) with ordinality as o(id, ord)`: the ids with their 1-based position. */
export const idsWithOrdinality = (ids: number[]): SQL => sql`unnest(${intArray(ids)}) with ordinality as o(id, ord)`;
