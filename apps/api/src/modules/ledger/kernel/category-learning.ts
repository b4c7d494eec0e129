import type { DbOrTx, LedgerType } from '@nestegg/db';
import { type SQL, sql } from 'drizzle-orm';

/**
 * The category a new memo most likely belongs to (spec rule 3): among the member's confirmed entries of
 * the type whose memo contains the new memo or is contained in it, the category used most (ties: the first
 * name), if the member still has that category. Reads `merchant_category`, the per-merchant counts the
 * entry triggers keep (memo keys: lower case, no whitespace), never the entries themselves:
 * - "contains": `merchant LIKE '%key%'` through the trigram index led by member_id;
 * - "is contained in": each substring of the key (at most n(n+1)/2 for n characters; merchants are short)
 *   probed in the primary key.
 */
export async function learnedCategory(
  db: DbOrTx,
  memberId: number,
  type: LedgerType,
  memo: string | null,
): Promise<string | null> {
  if (memo === null || memo.trim() === '') return null;
  const rows = (await db.execute(learningQuery(memberId, type, memo))) as unknown as { category: string }[];
  return rows[0]?.category ?? null;
}

/** The statement of `learnedCategory` (exported for measurements). */
export function learningQuery(memberId: number, type: LedgerType, memo: string): SQL {
  return sql`
    with k as materialized (select nestegg_merchant_key(${memo}::text) as key),
    hits as (
      select mc.category, mc.merchant, mc.uses
        from merchant_category mc, k
       where mc.member_id = ${memberId} and mc.type = ${type}::ledger_type
         and mc.merchant like '%' || replace(replace(replace(k.key, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'
      union
      select mc.category, mc.merchant, mc.uses
        from unnest(array(
               select substr(k.key, i / length(k.key) + 1, i % length(k.key) + 1)
                 from k, generate_series(0, length(k.key) * length(k.key) - 1) i
                where i / length(k.key) + i % length(k.key) < length(k.key))) p(part)
        -- A range of one value, not "=": the trigram index answers "=" too, and slowly; only the primary
        -- key answers a range. One series, not two nested: the planner's row estimates stay small.
        join merchant_category mc on mc.member_id = ${memberId} and mc.type = ${type}::ledger_type
         and mc.merchant >= p.part and mc.merchant <= p.part
    )
    select h.category
      from hits h
      join category c on c.member_id = ${memberId} and c.type = ${type}::ledger_type and c.name = h.category
     group by h.category
     order by sum(h.uses) desc, h.category
     limit 1`;
}
