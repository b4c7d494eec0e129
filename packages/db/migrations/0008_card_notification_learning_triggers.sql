-- Card-notification learning: merchant_category counts, per member, type, merchant key and category, the
-- confirmed entries whose memo has that key. Triggers on account_entry keep it true whatever writes the
-- entries (services, confirm, the recurring job, restore, category renames), set-based per statement.
-- The lookup asks for keys containing the new memo's key (trigram index, led by member_id through btree_gin)
-- and keys the new key contains (every substring of it, probed in the primary key).

CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gin;
--> statement-breakpoint
-- The merchant key of a memo: lower case, no whitespace ("스타벅스 강남점" and "스타벅스강남점" are one merchant).
CREATE FUNCTION nestegg_merchant_key(memo text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT lower(regexp_replace(memo, '\s+', '', 'g'))
$$;
--> statement-breakpoint
CREATE INDEX "merchant_category_member_trgm_idx" ON "merchant_category" USING gin ("member_id", "merchant" gin_trgm_ops);
--> statement-breakpoint
CREATE FUNCTION nestegg_merchant_category_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO merchant_category AS mc (member_id, type, merchant, category, uses)
  SELECT member_id, type, nestegg_merchant_key(memo), category, count(*)
    FROM new_rows
   WHERE NOT pending AND category IS NOT NULL AND nestegg_merchant_key(memo) <> ''
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (member_id, type, merchant, category) DO UPDATE SET uses = mc.uses + excluded.uses;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Moves the counts by the statement's net effect (new rows count +1, old rows -1), then removes the old rows'
-- keys left at zero. Rows of a member being deleted are left alone: their counts go with the member.
CREATE FUNCTION nestegg_merchant_category_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO merchant_category AS mc (member_id, type, merchant, category, uses)
  SELECT member_id, type, merchant, category, sum(delta)::int
    FROM (
      SELECT member_id, type, nestegg_merchant_key(memo) AS merchant, category, 1 AS delta
        FROM new_rows WHERE NOT pending AND category IS NOT NULL
      UNION ALL
      SELECT member_id, type, nestegg_merchant_key(memo), category, -1
        FROM old_rows WHERE NOT pending AND category IS NOT NULL
    ) effects
   WHERE merchant <> '' AND EXISTS (SELECT 1 FROM member m WHERE m.id = effects.member_id)
   GROUP BY 1, 2, 3, 4 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (member_id, type, merchant, category) DO UPDATE SET uses = mc.uses + excluded.uses;
  -- Only a decrement reaches zero: the old rows' keys are the ones to look at.
  DELETE FROM merchant_category mc
   USING (SELECT DISTINCT member_id, type, nestegg_merchant_key(memo) AS merchant, category
            FROM old_rows WHERE NOT pending AND category IS NOT NULL) k
   WHERE mc.member_id = k.member_id AND mc.type = k.type AND mc.merchant = k.merchant
     AND mc.category = k.category AND mc.uses <= 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION nestegg_merchant_category_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO merchant_category AS mc (member_id, type, merchant, category, uses)
  SELECT member_id, type, nestegg_merchant_key(memo), category, -count(*)::int
    FROM old_rows r
   WHERE NOT pending AND category IS NOT NULL AND nestegg_merchant_key(memo) <> ''
     AND EXISTS (SELECT 1 FROM member m WHERE m.id = r.member_id)
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (member_id, type, merchant, category) DO UPDATE SET uses = mc.uses + excluded.uses;
  -- Only a decrement reaches zero: the old rows' keys are the ones to look at.
  DELETE FROM merchant_category mc
   USING (SELECT DISTINCT member_id, type, nestegg_merchant_key(memo) AS merchant, category
            FROM old_rows WHERE NOT pending AND category IS NOT NULL) k
   WHERE mc.member_id = k.member_id AND mc.type = k.type AND mc.merchant = k.merchant
     AND mc.category = k.category AND mc.uses <= 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A table's triggers fire in name order: these run after the balance and change-log triggers of every
-- statement, so concurrent writers lock wallet, change counter and merchant rows in one order.
CREATE TRIGGER account_entry_merchant_category_insert AFTER INSERT ON "account_entry"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_merchant_category_insert();
--> statement-breakpoint
CREATE TRIGGER account_entry_merchant_category_update AFTER UPDATE ON "account_entry"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_merchant_category_update();
--> statement-breakpoint
CREATE TRIGGER account_entry_merchant_category_delete AFTER DELETE ON "account_entry"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_merchant_category_delete();
--> statement-breakpoint
INSERT INTO merchant_category (member_id, type, merchant, category, uses)
SELECT member_id, type, nestegg_merchant_key(memo), category, count(*)
  FROM account_entry
 WHERE NOT pending AND category IS NOT NULL AND nestegg_merchant_key(memo) <> ''
 GROUP BY 1, 2, 3, 4;
