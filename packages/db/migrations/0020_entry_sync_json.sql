ALTER TABLE "ledger_change" ADD COLUMN "record_json" text;--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- The delta feed's entries written once, when they change (decision L36): the change log keeps each live
-- entry's answer (the contract's `Entry`) as JSON text, so the feed reads its page from (member_id, seq)
-- and joins the texts, with no lookup or JSON building per entry at read time.
-- nestegg_entry_json is the SQL twin of the api's `toEntryResponse` (entries/entry.view.ts): decimals
-- without their padding (trim_scale, as trimDecimal), instants as JS `toISOString` writes them (UTC,
-- milliseconds truncated), tag names in the member's tag order. A change of the `Entry` shape changes this
-- function in a new migration and rewrites the stored texts.
-- ---------------------------------------------------------------------------------------------------
CREATE FUNCTION nestegg_entry_json(e account_entry) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT json_build_object('id', e.id, 'type', e.type, 'amount', e.amount, 'date', e.entry_date,
    'memo', e.memo, 'category', e.category, 'accountId', e.account_id,
    'tags', array(SELECT t.name FROM entry_tag et JOIN tag t ON t.member_id = et.member_id AND t.id = et.tag_id
                   WHERE et.member_id = e.member_id AND et.entry_id = e.id ORDER BY t.sort_order, t.id),
    'currency', e.currency, 'originalAmount', trim_scale(e.original_amount)::text,
    'exchangeRate', trim_scale(e.exchange_rate)::text, 'installmentMonths', e.installment_months,
    'pending', e.pending, 'notifKey', e.notif_key, 'recurringId', e.recurring_id,
    'createdAt', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updatedAt', to_char(e.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text
$$;
--> statement-breakpoint
-- As 0005's, and a live entry's change also stores the entry's answer (tombstones and other kinds: null).
-- Every write that changes what an entry's answer shows passes here: the entry's own insert or update, its
-- tags (entry_tag's triggers log the entry). A tag's rename or reorder is refreshed by tag_refresh_entry_json.
CREATE OR REPLACE FUNCTION nestegg_log_changes(p_entity text, p_deleted boolean, p_changed jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH changed AS (
    SELECT DISTINCT (item ->> 'member_id')::int AS member_id, (item ->> 'id')::int AS id
      FROM jsonb_array_elements(p_changed) AS item
  ), counts AS (
    SELECT member_id, count(*) AS n FROM changed GROUP BY member_id
  ), bumped AS (
    INSERT INTO member_change_counter (member_id, seq)
    SELECT member_id, n FROM counts
    ON CONFLICT (member_id) DO UPDATE SET seq = member_change_counter.seq + excluded.seq
    RETURNING member_id, seq
  ), numbered AS (
    SELECT c.member_id, c.id,
           b.seq - row_number() OVER (PARTITION BY c.member_id ORDER BY c.id DESC) + 1 AS seq
      FROM changed c JOIN bumped b USING (member_id)
  )
  INSERT INTO ledger_change (member_id, entity, entity_id, seq, deleted, changed_at, record_json)
  SELECT n.member_id, p_entity, n.id, n.seq, p_deleted, now(),
         CASE WHEN p_entity = 'entry' AND NOT p_deleted THEN
           (SELECT nestegg_entry_json(e) FROM account_entry e WHERE e.member_id = n.member_id AND e.id = n.id)
         END
    FROM numbered n
  ON CONFLICT (member_id, entity, entity_id)
    DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, changed_at = excluded.changed_at,
                  record_json = excluded.record_json;
END $$;
--> statement-breakpoint
-- A tag's name or place in the member's order shows in the answer of every entry carrying it: their stored
-- answers are rewritten without a new change number (as before, when the feed built them at read time: the
-- rename's touch of its entries, L18, is what resends them).
CREATE FUNCTION nestegg_refresh_tagged_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ledger_change lc SET record_json = nestegg_entry_json(e)
    FROM account_entry e
   WHERE lc.member_id = e.member_id AND lc.entity = 'entry' AND lc.entity_id = e.id AND NOT lc.deleted
     AND (e.member_id, e.id) IN (
       SELECT et.member_id, et.entry_id
         FROM new_rows n JOIN old_rows o ON o.member_id = n.member_id AND o.id = n.id
         JOIN entry_tag et ON et.member_id = n.member_id AND et.tag_id = n.id
        WHERE n.name IS DISTINCT FROM o.name OR n.sort_order IS DISTINCT FROM o.sort_order);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER tag_refresh_entry_json AFTER UPDATE ON "tag"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_refresh_tagged_entries();
--> statement-breakpoint
-- The entries logged before this migration.
UPDATE ledger_change lc SET record_json = nestegg_entry_json(e)
  FROM account_entry e
 WHERE lc.entity = 'entry' AND NOT lc.deleted AND e.member_id = lc.member_id AND e.id = lc.entity_id;
