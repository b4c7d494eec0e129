-- Board images: which posts and comments show an image, kept by triggers whatever writes the rows (the
-- board routes, an admin, a seed script), so the posts code knows nothing of images. A body shows an image
-- when it contains `/api/images/<16-character id>` of an existing image (with or without the host). When
-- the last post or comment showing an image goes (deleted, or edited away), the image is stamped
-- `unreferenced_since`; the worker's board-image-cleanup job deletes images stamped longer ago than its
-- grace period. Every trigger is per statement, over its transition tables: one set-based statement per
-- write, whatever its size.

-- Images are already compressed: storing them uncompressed out of line skips a useless pglz attempt.
ALTER TABLE "board_image" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;
--> statement-breakpoint

-- The ids of the images a body names, each once.
CREATE FUNCTION nestegg_board_image_ids(body text) RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT DISTINCT m[1] FROM regexp_matches(body, '/api/images/([A-Za-z0-9_-]{16})(?![A-Za-z0-9_-])', 'g') AS m
$$;
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- References from bodies. The images are locked FOR KEY SHARE before a reference is written: an image the
-- clean-up job is deleting at that moment is waited for and then skipped (the body names a deleted image,
-- as it would a moment later), instead of failing the post's write on the foreign key.
-- ---------------------------------------------------------------------------------------------------
CREATE FUNCTION nestegg_post_images_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO post_image (member_id, post_id, image_id)
  SELECT r.member_id, r.id, i.id
    FROM new_rows r
    CROSS JOIN LATERAL nestegg_board_image_ids(r.body) AS named(image_id)
    JOIN board_image i ON i.id = named.image_id
   WHERE r.body LIKE '%/api/images/%'
   ORDER BY i.id
     FOR KEY SHARE OF i
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER post_board_images_insert AFTER INSERT ON "post"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_post_images_insert();
--> statement-breakpoint
-- Only rows whose body changed: votes, counters and flags leave the references alone.
CREATE FUNCTION nestegg_post_images_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM post_image p
   USING old_rows o JOIN new_rows n ON n.id = o.id
   WHERE p.post_id = n.id AND o.body IS DISTINCT FROM n.body
     AND p.image_id NOT IN (SELECT nestegg_board_image_ids(n.body));
  INSERT INTO post_image (member_id, post_id, image_id)
  SELECT n.member_id, n.id, i.id
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    CROSS JOIN LATERAL nestegg_board_image_ids(n.body) AS named(image_id)
    JOIN board_image i ON i.id = named.image_id
   WHERE o.body IS DISTINCT FROM n.body AND n.body LIKE '%/api/images/%'
   ORDER BY i.id
     FOR KEY SHARE OF i
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER post_board_images_update AFTER UPDATE ON "post"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_post_images_update();
--> statement-breakpoint
CREATE FUNCTION nestegg_comment_images_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO comment_image (member_id, comment_id, image_id)
  SELECT r.member_id, r.id, i.id
    FROM new_rows r
    CROSS JOIN LATERAL nestegg_board_image_ids(r.body) AS named(image_id)
    JOIN board_image i ON i.id = named.image_id
   WHERE r.body LIKE '%/api/images/%'
   ORDER BY i.id
     FOR KEY SHARE OF i
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER comment_board_images_insert AFTER INSERT ON "comment"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_comment_images_insert();
--> statement-breakpoint
CREATE FUNCTION nestegg_comment_images_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM comment_image c
   USING old_rows o JOIN new_rows n ON n.id = o.id
   WHERE c.comment_id = n.id AND o.body IS DISTINCT FROM n.body
     AND c.image_id NOT IN (SELECT nestegg_board_image_ids(n.body));
  INSERT INTO comment_image (member_id, comment_id, image_id)
  SELECT n.member_id, n.id, i.id
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    CROSS JOIN LATERAL nestegg_board_image_ids(n.body) AS named(image_id)
    JOIN board_image i ON i.id = named.image_id
   WHERE o.body IS DISTINCT FROM n.body AND n.body LIKE '%/api/images/%'
   ORDER BY i.id
     FOR KEY SHARE OF i
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER comment_board_images_update AFTER UPDATE ON "comment"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nestegg_comment_images_update();
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------
-- The stamp. Both sides lock the image rows (in id order) before looking: a reference written by a
-- concurrent transaction is then either committed, and seen by the next statement's fresh snapshot, or
-- written after this transaction, and its own trigger clears the stamp. Deletions include the cascades
-- from a deleted post, comment or image.
-- ---------------------------------------------------------------------------------------------------
CREATE FUNCTION nestegg_board_images_referenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM board_image WHERE id IN (SELECT image_id FROM new_refs) ORDER BY id FOR NO KEY UPDATE;
  UPDATE board_image SET unreferenced_since = NULL
   WHERE id IN (SELECT image_id FROM new_refs) AND unreferenced_since IS NOT NULL;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION nestegg_board_images_unreferenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM board_image WHERE id IN (SELECT image_id FROM old_refs) ORDER BY id FOR NO KEY UPDATE;
  UPDATE board_image i SET unreferenced_since = now()
   WHERE i.id IN (SELECT image_id FROM old_refs) AND i.unreferenced_since IS NULL
     AND NOT EXISTS (SELECT 1 FROM post_image p WHERE p.image_id = i.id)
     AND NOT EXISTS (SELECT 1 FROM comment_image c WHERE c.image_id = i.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER post_image_referenced AFTER INSERT ON "post_image"
  REFERENCING NEW TABLE AS new_refs FOR EACH STATEMENT EXECUTE FUNCTION nestegg_board_images_referenced();
--> statement-breakpoint
CREATE TRIGGER post_image_unreferenced AFTER DELETE ON "post_image"
  REFERENCING OLD TABLE AS old_refs FOR EACH STATEMENT EXECUTE FUNCTION nestegg_board_images_unreferenced();
--> statement-breakpoint
CREATE TRIGGER comment_image_referenced AFTER INSERT ON "comment_image"
  REFERENCING NEW TABLE AS new_refs FOR EACH STATEMENT EXECUTE FUNCTION nestegg_board_images_referenced();
--> statement-breakpoint
CREATE TRIGGER comment_image_unreferenced AFTER DELETE ON "comment_image"
  REFERENCING OLD TABLE AS old_refs FOR EACH STATEMENT EXECUTE FUNCTION nestegg_board_images_unreferenced();
--> statement-breakpoint

-- Posts and comments written before this migration, and the images nothing shows yet.
INSERT INTO post_image (member_id, post_id, image_id)
SELECT p.member_id, p.id, i.id
  FROM post p CROSS JOIN LATERAL nestegg_board_image_ids(p.body) AS named(image_id)
  JOIN board_image i ON i.id = named.image_id
 WHERE p.body LIKE '%/api/images/%'
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO comment_image (member_id, comment_id, image_id)
SELECT c.member_id, c.id, i.id
  FROM comment c CROSS JOIN LATERAL nestegg_board_image_ids(c.body) AS named(image_id)
  JOIN board_image i ON i.id = named.image_id
 WHERE c.body LIKE '%/api/images/%'
ON CONFLICT DO NOTHING;
--> statement-breakpoint
UPDATE board_image i SET unreferenced_since = CASE
    WHEN EXISTS (SELECT 1 FROM post_image p WHERE p.image_id = i.id)
      OR EXISTS (SELECT 1 FROM comment_image c WHERE c.image_id = i.id) THEN NULL
    ELSE i.created_at END;
