-- Sums stay safe integers (decision FI2). A JS number reads money exactly up to 2^53 − 1; balances, entry
-- totals, budget spent and statistics are sums, so each member's amounts are bounded as a whole.

CREATE TABLE "ledger_volume" (
	"member_id" integer PRIMARY KEY NOT NULL,
	"volume" numeric DEFAULT '0' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ledger_volume" ADD CONSTRAINT "ledger_volume_member_id_member_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."member"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Wallet balances a JS number reads exactly. NOT VALID first: a database holding a wider balance still
-- migrates (that wallet's next balance change is then refused until it is back in range); validated at once
-- when no row is outside.
ALTER TABLE "account" ADD CONSTRAINT "account_balance_safe" CHECK ("account"."balance" between -9007199254740991 and 9007199254740991) NOT VALID;
--> statement-breakpoint
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "account" WHERE "balance" NOT BETWEEN -9007199254740991 AND 9007199254740991) THEN
    ALTER TABLE "account" VALIDATE CONSTRAINT "account_balance_safe";
  END IF;
END $$;
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- The ledger volume: per member, the sum of every amount the api adds up anywhere (entries; wallets'
-- |opening balance| + |manual value| + |loan amount|; budget, expected-income and one-time budget amounts).
-- Every balance, total, spent or statistic over a member's rows is at most this, so bounding it bounds them.
-- ---------------------------------------------------------------------------------------------------
INSERT INTO "ledger_volume" ("member_id", "volume")
SELECT "member_id", sum("v") FROM (
  SELECT "member_id", "amount"::numeric AS "v" FROM "account_entry"
  UNION ALL
  SELECT "member_id", abs("opening_balance"::numeric) + abs(coalesce("current_value", 0)::numeric)
                      + abs(coalesce("loan_amount", 0)::numeric) FROM "account"
  UNION ALL SELECT "member_id", abs("amount"::numeric) FROM "budget"
  UNION ALL SELECT "member_id", abs("amount"::numeric) FROM "budget_income"
  UNION ALL SELECT "member_id", abs("amount"::numeric) FROM "budget_onetime"
) AS "amounts" GROUP BY "member_id";
--> statement-breakpoint

-- Applies per-member changes. Decreases only update (a member being deleted has no row left to create);
-- increases upsert in member order and are refused past 2^53 − 1 with a check_violation naming
-- `ledger_volume_safe`, which the api answers with 400 AMOUNT_OUT_OF_RANGE. A member over the bound from
-- before this migration can still delete and lower amounts. Concurrent writers of one member queue on its
-- row, and the upsert adds to the latest committed volume, so two writes cannot both pass the bound.
CREATE FUNCTION ledger_volume_change(members int[], deltas numeric[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  over_member int;
  total numeric;
BEGIN
  -- One member (nearly every write): plain statements.
  IF cardinality(members) = 1 THEN
    IF deltas[1] < 0 THEN
      UPDATE "ledger_volume" SET "volume" = "volume" + deltas[1] WHERE "member_id" = members[1];
    ELSIF deltas[1] > 0 THEN
      INSERT INTO "ledger_volume" ("member_id", "volume") VALUES (members[1], deltas[1])
      ON CONFLICT ("member_id") DO UPDATE SET "volume" = "ledger_volume"."volume" + excluded."volume"
      RETURNING "volume" INTO total;
      IF total > 9007199254740991 THEN
        RAISE EXCEPTION 'the ledger amounts of member % would add up past 9007199254740991', members[1]
          USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_volume_safe', TABLE = 'ledger_volume';
      END IF;
    END IF;
    RETURN;
  END IF;
  UPDATE "ledger_volume" v SET "volume" = v."volume" + d.delta
    FROM unnest(members, deltas) AS d(member_id, delta)
   WHERE v."member_id" = d.member_id AND d.delta < 0;
  WITH raised AS (
    INSERT INTO "ledger_volume" ("member_id", "volume")
    SELECT d.member_id, d.delta FROM unnest(members, deltas) AS d(member_id, delta)
     WHERE d.delta > 0 ORDER BY d.member_id
    ON CONFLICT ("member_id") DO UPDATE SET "volume" = "ledger_volume"."volume" + excluded."volume"
    RETURNING "member_id", "volume"
  )
  SELECT r."member_id" INTO over_member FROM raised r WHERE r."volume" > 9007199254740991 LIMIT 1;
  IF over_member IS NOT NULL THEN
    RAISE EXCEPTION 'the ledger amounts of member % would add up past 9007199254740991', over_member
      USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_volume_safe', TABLE = 'ledger_volume';
  END IF;
END $$;
--> statement-breakpoint

-- Inserts and deletes: one trigger function per table, its contribution per row summed per member over the
-- statement's rows (restore and the recurring job write many rows in one statement).
CREATE FUNCTION ledger_volume_account_entry() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  m int[];
  d numeric[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(member_id), array_agg(delta) INTO m, d
      FROM (SELECT member_id, sum(amount::numeric) AS delta FROM new_rows GROUP BY member_id) s;
  ELSE
    SELECT array_agg(member_id), array_agg(delta) INTO m, d
      FROM (SELECT member_id, -sum(amount::numeric) AS delta FROM old_rows GROUP BY member_id) s;
  END IF;
  IF m IS NOT NULL THEN PERFORM ledger_volume_change(m, d); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION ledger_volume_account() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  m int[];
  d numeric[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(member_id), array_agg(delta) INTO m, d FROM (
      SELECT member_id, sum(abs(opening_balance::numeric) + abs(coalesce(current_value, 0)::numeric)
                            + abs(coalesce(loan_amount, 0)::numeric)) AS delta
        FROM new_rows GROUP BY member_id) s;
  ELSE
    SELECT array_agg(member_id), array_agg(delta) INTO m, d FROM (
      SELECT member_id, -sum(abs(opening_balance::numeric) + abs(coalesce(current_value, 0)::numeric)
                             + abs(coalesce(loan_amount, 0)::numeric)) AS delta
        FROM old_rows GROUP BY member_id) s;
  END IF;
  IF m IS NOT NULL THEN PERFORM ledger_volume_change(m, d); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- budget, budget_income and budget_onetime: the absolute amount.
CREATE FUNCTION ledger_volume_amount() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  m int[];
  d numeric[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(member_id), array_agg(delta) INTO m, d
      FROM (SELECT member_id, sum(abs(amount::numeric)) AS delta FROM new_rows GROUP BY member_id) s;
  ELSE
    SELECT array_agg(member_id), array_agg(delta) INTO m, d
      FROM (SELECT member_id, -sum(abs(amount::numeric)) AS delta FROM old_rows GROUP BY member_id) s;
  END IF;
  IF m IS NOT NULL THEN PERFORM ledger_volume_change(m, d); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Updates: row triggers on the counted columns only, so the balance trigger's updates of `account` and the
-- entry updates that leave the amount (confirm, category renames) cost nothing; amounts change one row at a time.
CREATE FUNCTION ledger_volume_account_entry_row() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.amount IS DISTINCT FROM OLD.amount THEN
    PERFORM ledger_volume_change(ARRAY[NEW.member_id], ARRAY[NEW.amount::numeric - OLD.amount::numeric]);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION ledger_volume_account_row() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  delta numeric := (abs(NEW.opening_balance::numeric) + abs(coalesce(NEW.current_value, 0)::numeric)
                    + abs(coalesce(NEW.loan_amount, 0)::numeric))
                 - (abs(OLD.opening_balance::numeric) + abs(coalesce(OLD.current_value, 0)::numeric)
                    + abs(coalesce(OLD.loan_amount, 0)::numeric));
BEGIN
  IF delta <> 0 THEN PERFORM ledger_volume_change(ARRAY[NEW.member_id], ARRAY[delta]); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION ledger_volume_amount_row() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  delta numeric := abs(NEW.amount::numeric) - abs(OLD.amount::numeric);
BEGIN
  IF delta <> 0 THEN PERFORM ledger_volume_change(ARRAY[NEW.member_id], ARRAY[delta]); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "account_entry_volume_insert" AFTER INSERT ON "account_entry" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_account_entry();
--> statement-breakpoint
CREATE TRIGGER "account_entry_volume_update" AFTER UPDATE OF "amount" ON "account_entry"
  FOR EACH ROW EXECUTE FUNCTION ledger_volume_account_entry_row();
--> statement-breakpoint
CREATE TRIGGER "account_entry_volume_delete" AFTER DELETE ON "account_entry" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_account_entry();
--> statement-breakpoint
CREATE TRIGGER "account_volume_insert" AFTER INSERT ON "account" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_account();
--> statement-breakpoint
CREATE TRIGGER "account_volume_update" AFTER UPDATE OF "opening_balance", "current_value", "loan_amount" ON "account"
  FOR EACH ROW EXECUTE FUNCTION ledger_volume_account_row();
--> statement-breakpoint
CREATE TRIGGER "account_volume_delete" AFTER DELETE ON "account" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_account();
--> statement-breakpoint
CREATE TRIGGER "budget_volume_insert" AFTER INSERT ON "budget" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_amount();
--> statement-breakpoint
CREATE TRIGGER "budget_volume_update" AFTER UPDATE OF "amount" ON "budget"
  FOR EACH ROW EXECUTE FUNCTION ledger_volume_amount_row();
--> statement-breakpoint
CREATE TRIGGER "budget_volume_delete" AFTER DELETE ON "budget" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_amount();
--> statement-breakpoint
CREATE TRIGGER "budget_income_volume_insert" AFTER INSERT ON "budget_income" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_amount();
--> statement-breakpoint
CREATE TRIGGER "budget_income_volume_update" AFTER UPDATE OF "amount" ON "budget_income"
  FOR EACH ROW EXECUTE FUNCTION ledger_volume_amount_row();
--> statement-breakpoint
CREATE TRIGGER "budget_income_volume_delete" AFTER DELETE ON "budget_income" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_amount();
--> statement-breakpoint
CREATE TRIGGER "budget_onetime_volume_insert" AFTER INSERT ON "budget_onetime" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_amount();
--> statement-breakpoint
CREATE TRIGGER "budget_onetime_volume_update" AFTER UPDATE OF "amount" ON "budget_onetime"
  FOR EACH ROW EXECUTE FUNCTION ledger_volume_amount_row();
--> statement-breakpoint
CREATE TRIGGER "budget_onetime_volume_delete" AFTER DELETE ON "budget_onetime" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_volume_amount();
