-- What the drizzle schema cannot express: composite wallet references that null only the wallet, the
-- trigram index of the memo search, and the triggers that keep wallet balances and the delta-sync change
-- log true whatever writes the rows (services, the recurring job, restore).

-- Wallet references are (member_id, account_id): a row can only point at its own member's wallet; deleting
-- the wallet empties account_id and keeps the row (decision DB5).
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_account_fk" FOREIGN KEY ("member_id", "account_id")
  REFERENCES "account" ("member_id", "id") ON DELETE SET NULL ("account_id");
--> statement-breakpoint
ALTER TABLE "recurring" ADD CONSTRAINT "recurring_account_fk" FOREIGN KEY ("member_id", "account_id")
  REFERENCES "account" ("member_id", "id") ON DELETE SET NULL ("account_id");
--> statement-breakpoint
ALTER TABLE "quick_entry" ADD CONSTRAINT "quick_entry_account_fk" FOREIGN KEY ("member_id", "account_id")
  REFERENCES "account" ("member_id", "id") ON DELETE SET NULL ("account_id");
--> statement-breakpoint
ALTER TABLE "account_entry" ADD CONSTRAINT "account_entry_recurring_fk" FOREIGN KEY ("member_id", "recurring_id")
  REFERENCES "recurring" ("member_id", "id") ON DELETE SET NULL ("recurring_id");
--> statement-breakpoint

-- Memo search (`q`): a trigram index serves `ilike '%…%'` for any language, Korean included.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX "account_entry_memo_trgm_idx" ON "account_entry" USING gin ("memo" gin_trgm_ops);
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- Wallet balances: balance = opening balance + confirmed incomes − confirmed expenses on the wallet.
-- Existing wallets keep the balance their member sees: the opening balance is what the entries leave.
-- ---------------------------------------------------------------------------------------------------
UPDATE "account" SET "opening_balance" = "account"."balance" - coalesce((
  SELECT sum(CASE WHEN e."type" = 'INCOME' THEN e."amount" ELSE -e."amount" END)
  FROM "account_entry" e
  WHERE e."member_id" = "account"."member_id" AND e."account_id" = "account"."id" AND NOT e."pending"
), 0);
--> statement-breakpoint
-- A new wallet starts at its opening balance; changing the opening balance moves the balance by as much.
CREATE FUNCTION nestegg_account_opening_balance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.balance := NEW.opening_balance;
  ELSIF NEW.opening_balance IS DISTINCT FROM OLD.opening_balance THEN
    NEW.balance := NEW.balance + (NEW.opening_balance - OLD.opening_balance);
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_opening_balance BEFORE INSERT OR UPDATE ON "account"
  FOR EACH ROW EXECUTE FUNCTION nestegg_account_opening_balance();
--> statement-breakpoint
-- Each statement's effect of confirmed entries on their wallets: one UPDATE per statement, whatever its size.
CREATE FUNCTION nestegg_entry_balance_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH totals AS (
    SELECT member_id, account_id, sum(CASE WHEN type = 'INCOME' THEN amount ELSE -amount END) AS delta
      FROM new_rows WHERE NOT pending AND account_id IS NOT NULL GROUP BY member_id, account_id
  )
  UPDATE "account" a SET balance = a.balance + t.delta
    FROM totals t WHERE a.member_id = t.member_id AND a.id = t.account_id AND t.delta <> 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION nestegg_entry_balance_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH totals AS (
    SELECT member_id, account_id, sum(CASE WHEN type = 'INCOME' THEN -amount ELSE amount END) AS delta
      FROM old_rows WHERE NOT pending AND account_id IS NOT NULL GROUP BY member_id, account_id
  )
  UPDATE "account" a SET balance = a.balance + t.delta
    FROM totals t WHERE a.member_id = t.member_id AND a.id = t.account_id AND t.delta <> 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION nestegg_entry_balance_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH effects AS (
    SELECT member_id, account_id, CASE WHEN type = 'INCOME' THEN amount ELSE -amount END AS delta
      FROM new_rows WHERE NOT pending AND account_id IS NOT NULL
    UNION ALL
    SELECT member_id, account_id, CASE WHEN type = 'INCOME' THEN -amount ELSE amount END
      FROM old_rows WHERE NOT pending AND account_id IS NOT NULL
  ), totals AS (
    SELECT member_id, account_id, sum(delta) AS delta FROM effects GROUP BY member_id, account_id
  )
  UPDATE "account" a SET balance = a.balance + t.delta
    FROM totals t WHERE a.member_id = t.member_id AND a.id = t.account_id AND t.delta <> 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_entry_balance_insert AFTER INSERT ON "account_entry"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_entry_balance_insert();
--> statement-breakpoint
CREATE TRIGGER account_entry_balance_update AFTER UPDATE ON "account_entry"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_entry_balance_update();
--> statement-breakpoint
CREATE TRIGGER account_entry_balance_delete AFTER DELETE ON "account_entry"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_entry_balance_delete();
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- Delta sync: every changed ledger row gets the member's next change number in ledger_change (one row per
-- entity, the latest change; `deleted` for a tombstone). Set-based per statement: one counter bump per
-- member and statement, numbers handed out in id order. The counter's row lock, held to commit, makes the
-- order of numbers the order of commits.
-- ---------------------------------------------------------------------------------------------------
CREATE FUNCTION nestegg_log_changes(p_entity text, p_deleted boolean, p_changed jsonb) RETURNS void LANGUAGE plpgsql AS $$
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
  INSERT INTO ledger_change (member_id, entity, entity_id, seq, deleted)
  SELECT member_id, p_entity, id, seq, p_deleted FROM numbered
  ON CONFLICT (member_id, entity, entity_id) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted;
END $$;
--> statement-breakpoint
CREATE FUNCTION nestegg_log_upserts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM nestegg_log_changes(TG_ARGV[0], false,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('member_id', member_id, 'id', id)), '[]') FROM changed_rows));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION nestegg_log_deletes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Rows of a member being deleted need no tombstone (their log goes with the member).
  PERFORM nestegg_log_changes(TG_ARGV[0], true,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('member_id', r.member_id, 'id', r.id)), '[]')
       FROM changed_rows r WHERE EXISTS (SELECT 1 FROM member m WHERE m.id = r.member_id)));
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Tags belong to their entry: adding or removing one is a change of the entry (unless it is being deleted).
CREATE FUNCTION nestegg_log_entry_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM nestegg_log_changes('entry', false,
    (SELECT coalesce(jsonb_agg(DISTINCT jsonb_build_object('member_id', r.member_id, 'id', r.entry_id)), '[]')
       FROM changed_rows r
      WHERE EXISTS (SELECT 1 FROM account_entry e WHERE e.member_id = r.member_id AND e.id = r.entry_id)));
  RETURN NULL;
END $$;
--> statement-breakpoint
DO $$
DECLARE
  logged record;
BEGIN
  FOR logged IN SELECT * FROM (VALUES
    ('account_entry', 'entry'), ('account', 'wallet'), ('category', 'category'), ('tag', 'tag'),
    ('recurring', 'recurring'), ('quick_entry', 'quick_entry'), ('budget', 'budget'),
    ('budget_onetime', 'budget_onetime'), ('budget_income', 'budget_income')
  ) AS t(table_name, entity) LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_log_upserts(%L)',
      logged.table_name || '_log_insert', logged.table_name, logged.entity);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_log_upserts(%L)',
      logged.table_name || '_log_update', logged.table_name, logged.entity);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_log_deletes(%L)',
      logged.table_name || '_log_delete', logged.table_name, logged.entity);
  END LOOP;
END $$;
--> statement-breakpoint
CREATE TRIGGER entry_tag_log_insert AFTER INSERT ON "entry_tag"
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_log_entry_tags();
--> statement-breakpoint
CREATE TRIGGER entry_tag_log_delete AFTER DELETE ON "entry_tag"
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_log_entry_tags();
