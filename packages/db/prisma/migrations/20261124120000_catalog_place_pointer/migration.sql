-- The catalog's location rule in the database, so that placing a pointer at a
-- new location is one round trip, as a commit that keeps its location is:
-- the warehouse's location lock, the overlap check and the write run in one
-- statement. Each statement of a VOLATILE plpgsql function takes a fresh
-- snapshot, so the check after the lock sees every row committed by the
-- lock's previous holder. services/catalog/src/store/locations.ts and
-- store/tables.ts call these; they are the only callers.

-- The first holder whose location equals `loc`, is one of `enclosing` (its
-- proper ancestors) or lies inside it: a live table or view other than those
-- in `except_rows`, or a dropped table whose purge (other than
-- `except_purge`) has not finished.
CREATE FUNCTION catalog_location_holder(
  wh TEXT, loc TEXT, enclosing TEXT[], except_rows TEXT[], except_purge BIGINT
) RETURNS TABLE (kind TEXT, namespace TEXT, name TEXT, location TEXT)
LANGUAGE sql STABLE AS $$
  SELECT t.kind, t.namespace, t.name, t.location FROM catalog_tables t
   WHERE t.warehouse_id = wh AND NOT (t.id = ANY(except_rows))
     AND (t.location = loc OR t.location = ANY(enclosing) OR starts_with(t.location, loc || '/'))
  UNION ALL
  SELECT 'purge', NULL, p.table_ident, p.location FROM catalog_purges p
   WHERE p.warehouse_id = wh AND p.done_at IS NULL AND (except_purge IS NULL OR p.id <> except_purge)
     AND (p.location = loc OR p.location = ANY(enclosing) OR starts_with(p.location, loc || '/'))
  LIMIT 1
$$;

-- Inserts (expected_version NULL) or compare-and-sets one pointer, when
-- `relocated`, first takes the warehouse's location lock (held to the end of
-- the transaction) and refuses a location another holder overlaps.
-- outcome: 'moved', 'lost_race' (the row changed or the name is taken), or
-- 'location_taken' with the holder.
CREATE FUNCTION catalog_place_pointer(
  wh TEXT, row_id TEXT, expected_version INTEGER, ns TEXT, table_name TEXT, row_kind TEXT,
  new_metadata_location TEXT, new_location TEXT, relocated BOOLEAN, enclosing TEXT[], vacating TEXT[]
) RETURNS TABLE (outcome TEXT, holder_kind TEXT, holder_namespace TEXT, holder_name TEXT, holder_location TEXT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  h RECORD;
BEGIN
  IF relocated THEN
    PERFORM pg_advisory_xact_lock(hashtext('catalog-locations:' || wh));
    SELECT * INTO h FROM catalog_location_holder(wh, new_location, enclosing, vacating, NULL);
    IF FOUND THEN
      RETURN QUERY SELECT 'location_taken'::TEXT, h.kind, h.namespace, h.name, h.location;
      RETURN;
    END IF;
  END IF;
  IF expected_version IS NULL THEN
    INSERT INTO catalog_tables (id, warehouse_id, namespace, name, kind, metadata_location, location, version)
    VALUES (row_id, wh, ns, table_name, row_kind, new_metadata_location, new_location, 1)
    ON CONFLICT (warehouse_id, namespace, name) DO NOTHING;
  ELSE
    UPDATE catalog_tables SET metadata_location = new_metadata_location, location = new_location,
           version = version + 1, updated_at = now()
     WHERE id = row_id AND version = expected_version;
  END IF;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'lost_race'::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT;
    RETURN;
  END IF;
  RETURN QUERY SELECT 'moved'::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT;
END
$$;
