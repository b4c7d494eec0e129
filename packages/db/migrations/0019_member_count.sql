CREATE TABLE "member_count" (
	"single" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"members" bigint NOT NULL,
	CONSTRAINT "member_count_single_row" CHECK ("member_count"."single")
);
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- The member count (issue 22): the admin list's unfiltered total, read from one row instead of count(*)
-- over the table. Statement-level triggers add what each INSERT or DELETE on member changed (transition
-- tables: one UPDATE per statement whatever its size); a TRUNCATE sets it to 0. The UPDATE's row lock is
-- held to commit, so concurrent sign-ups and deletions apply one after the other and the row is exact at
-- every commit. The triggers exist before the row is counted: CREATE TRIGGER locks member against writes
-- until this migration commits, so no member is counted twice or missed.
-- ---------------------------------------------------------------------------------------------------
CREATE FUNCTION nestegg_member_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  added bigint;
BEGIN
  SELECT count(*) INTO added FROM new_rows;
  IF added > 0 THEN
    UPDATE member_count SET members = members + added;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION nestegg_member_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  removed bigint;
BEGIN
  SELECT count(*) INTO removed FROM old_rows;
  IF removed > 0 THEN
    UPDATE member_count SET members = members - removed;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION nestegg_member_count_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE member_count SET members = 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER member_count_insert AFTER INSERT ON member REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION nestegg_member_count_insert();
--> statement-breakpoint
CREATE TRIGGER member_count_delete AFTER DELETE ON member REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION nestegg_member_count_delete();
--> statement-breakpoint
CREATE TRIGGER member_count_truncate AFTER TRUNCATE ON member
  FOR EACH STATEMENT EXECUTE FUNCTION nestegg_member_count_truncate();
--> statement-breakpoint
INSERT INTO member_count (single, members) SELECT true, count(*) FROM member;
