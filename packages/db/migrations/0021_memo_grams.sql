-- ---------------------------------------------------------------------------------------------------
-- Memo search keyed by member (decision L37). The GIN index on (member_id, memo gin_trgm_ops) kept one
-- posting list per trigram for the whole service and one per member: a search intersected the member's list
-- (all their entries) with the term's trigram lists (every member's matching memos), so its index read grew
-- with the member's ledger and with the service. Here each key is the member and one 3-character piece of the
-- lower-cased memo ('42 스타벅'): a search reads the member's lists for the pieces of its term, as long as
-- the member's matches. The query side calls the same function on the term, so both sides fold case alike;
-- `memo ilike` still decides (a memo holding every piece need not hold the term). A memo (or a term) shorter
-- than three characters has no piece: null, never indexed, never matched through this index.
-- ---------------------------------------------------------------------------------------------------
CREATE FUNCTION nestegg_memo_grams(member_id integer, memo text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  folded CONSTANT text := lower(memo);
  grams text[] := '{}';
BEGIN
  FOR i IN 1 .. char_length(folded) - 2 LOOP
    grams := grams || (member_id || ' ' || substr(folded, i, 3));
  END LOOP;
  RETURN nullif(grams, '{}');
END
$$;
--> statement-breakpoint
DROP INDEX "account_entry_member_memo_trgm_idx";--> statement-breakpoint
CREATE INDEX "account_entry_member_memo_grams_idx" ON "account_entry" USING gin ("member_id",nestegg_memo_grams(member_id, memo));
