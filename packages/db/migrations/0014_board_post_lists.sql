-- Board post lists: the rows derived from posts, comments and members that let every list read in its own
-- order from an index and answer its total without counting, kept by triggers whatever writes the rows (the
-- board routes, moderation, withdrawal, a seed script). Post and comment triggers are per statement, over
-- their transition tables: one set-based statement per write, whatever its size.
--   post_tag          one row per tag of a post, with the post's board, notice flag and block
--   board_post_count  posts per (board, tag or '' for all, blocked)
--   post.comment_count
--   member.profile_image_hash  md5 of the picture: the version in its public URL

-- ---------------------------------------------------------------------------------------------------
-- Posts: post_tag and board_post_count. Counter rows are upserted in key order, so concurrent writers
-- lock them in the same order.
-- ---------------------------------------------------------------------------------------------------
CREATE FUNCTION nestegg_post_lists_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO post_tag (post_id, tag, category, notice, blocked)
  SELECT DISTINCT r.id, t.tag, r.category, r.notice, r.blocked
    FROM new_rows r CROSS JOIN LATERAL unnest(r.tags) AS t(tag);
  INSERT INTO board_post_count AS c (category, tag, blocked, post_count)
  SELECT r.category, t.tag, r.blocked, count(*)
    FROM new_rows r CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(array['']::text[] || r.tags) AS x) AS t(tag)
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (category, tag, blocked) DO UPDATE SET post_count = c.post_count + excluded.post_count;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER post_lists_insert AFTER INSERT ON "post"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_post_lists_insert();
--> statement-breakpoint
-- Only rows whose tags, board, notice flag or block changed: votes, counters and bodies leave both alone.
CREATE FUNCTION nestegg_post_lists_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM post_tag pt
   USING old_rows o JOIN new_rows n ON n.id = o.id
   WHERE pt.post_id = n.id
     AND (o.tags, o.category, o.notice, o.blocked) IS DISTINCT FROM (n.tags, n.category, n.notice, n.blocked);
  INSERT INTO post_tag (post_id, tag, category, notice, blocked)
  SELECT DISTINCT n.id, t.tag, n.category, n.notice, n.blocked
    FROM old_rows o JOIN new_rows n ON n.id = o.id CROSS JOIN LATERAL unnest(n.tags) AS t(tag)
   WHERE (o.tags, o.category, o.notice, o.blocked) IS DISTINCT FROM (n.tags, n.category, n.notice, n.blocked);
  INSERT INTO board_post_count AS c (category, tag, blocked, post_count)
  SELECT d.category, d.tag, d.blocked, sum(d.delta)::integer
    FROM (
      SELECT o.category, t.tag, o.blocked, -1 AS delta
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(array['']::text[] || o.tags) AS x) AS t(tag)
       WHERE (o.tags, o.category, o.blocked) IS DISTINCT FROM (n.tags, n.category, n.blocked)
      UNION ALL
      SELECT n.category, t.tag, n.blocked, 1
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(array['']::text[] || n.tags) AS x) AS t(tag)
       WHERE (o.tags, o.category, o.blocked) IS DISTINCT FROM (n.tags, n.category, n.blocked)
    ) AS d
   GROUP BY 1, 2, 3 HAVING sum(d.delta) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (category, tag, blocked) DO UPDATE SET post_count = c.post_count + excluded.post_count;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER post_lists_update AFTER UPDATE ON "post"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_post_lists_update();
--> statement-breakpoint
-- post_tag rows go with the post (foreign key cascade); the counters are lowered here.
CREATE FUNCTION nestegg_post_lists_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO board_post_count AS c (category, tag, blocked, post_count)
  SELECT r.category, t.tag, r.blocked, -count(*)
    FROM old_rows r CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(array['']::text[] || r.tags) AS x) AS t(tag)
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (category, tag, blocked) DO UPDATE SET post_count = c.post_count + excluded.post_count;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER post_lists_delete AFTER DELETE ON "post"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_post_lists_delete();
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- Comments: post.comment_count. The posts are locked in id order first, so statements touching several
-- posts (a withdrawal, a seed) cannot deadlock with each other. A post being deleted with its comments is
-- already gone when the cascade runs: nothing to update.
-- ---------------------------------------------------------------------------------------------------
CREATE FUNCTION nestegg_post_comment_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM post WHERE id IN (SELECT post_id FROM new_rows) ORDER BY id FOR NO KEY UPDATE;
  UPDATE post p SET comment_count = p.comment_count + d.n
    FROM (SELECT post_id, count(*)::integer AS n FROM new_rows GROUP BY post_id) AS d
   WHERE p.id = d.post_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER post_comment_count_insert AFTER INSERT ON "comment"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_post_comment_count_insert();
--> statement-breakpoint
CREATE FUNCTION nestegg_post_comment_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM post WHERE id IN (SELECT post_id FROM old_rows) ORDER BY id FOR NO KEY UPDATE;
  UPDATE post p SET comment_count = greatest(p.comment_count - d.n, 0)
    FROM (SELECT post_id, count(*)::integer AS n FROM old_rows GROUP BY post_id) AS d
   WHERE p.id = d.post_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER post_comment_count_delete AFTER DELETE ON "comment"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_post_comment_count_delete();
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- Members: the picture's hash, recomputed whenever the picture (or the hash itself) is written, so lists
-- build avatar URLs without loading pictures, and the app never writes it.
-- ---------------------------------------------------------------------------------------------------
CREATE FUNCTION nestegg_member_profile_image_hash() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.profile_image_hash := md5(NEW.profile_image);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER member_profile_image_hash BEFORE INSERT OR UPDATE OF profile_image, profile_image_hash ON "member"
  FOR EACH ROW EXECUTE FUNCTION nestegg_member_profile_image_hash();
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- Rows written before this migration.
-- ---------------------------------------------------------------------------------------------------
INSERT INTO post_tag (post_id, tag, category, notice, blocked)
SELECT DISTINCT p.id, t.tag, p.category, p.notice, p.blocked FROM post p CROSS JOIN LATERAL unnest(p.tags) AS t(tag);
--> statement-breakpoint
INSERT INTO board_post_count (category, tag, blocked, post_count)
SELECT p.category, t.tag, p.blocked, count(*)
  FROM post p CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(array['']::text[] || p.tags) AS x) AS t(tag)
 GROUP BY 1, 2, 3;
--> statement-breakpoint
UPDATE post p SET comment_count = d.n
  FROM (SELECT post_id, count(*)::integer AS n FROM comment GROUP BY post_id) AS d
 WHERE p.id = d.post_id;
--> statement-breakpoint
UPDATE member SET profile_image_hash = md5(profile_image) WHERE profile_image IS NOT NULL;
