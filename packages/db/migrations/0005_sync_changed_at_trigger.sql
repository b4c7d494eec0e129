-- A re-logged change (the row changed again, or was deleted) takes the time of its latest change, so the
-- tombstone retention counts from the deletion.
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
  INSERT INTO ledger_change (member_id, entity, entity_id, seq, deleted, changed_at)
  SELECT member_id, p_entity, id, seq, p_deleted, now() FROM numbered
  ON CONFLICT (member_id, entity, entity_id)
    DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, changed_at = excluded.changed_at;
END $$;
