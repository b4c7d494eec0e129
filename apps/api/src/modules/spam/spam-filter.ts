import { type DbOrTx, spamKeyword } from '@nestegg/db';
import { sql } from 'drizzle-orm';
import { normalizeForSpam } from './normalize.js';

/**
 * Whether a text contains a spam keyword, checked by the database against the current list in the writing
 * transaction (no cached copy to invalidate across api instances). The list is short and admin-managed;
 * `strpos` over the normalised text costs microseconds per keyword.
 */
export async function containsSpam(tx: DbOrTx, ...parts: string[]): Promise<boolean> {
  const text = normalizeForSpam(parts.join('\n'));
  const [row] = await tx.execute<{ spam: boolean }>(
    sql`select exists (select 1 from ${spamKeyword} k where strpos(${text}::text, k.normalized) > 0) as spam`,
  );
  return row?.spam === true;
}
