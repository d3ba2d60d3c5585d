-- AlterTable
ALTER TABLE "catalog_purges" ADD COLUMN     "outcome" TEXT,
ADD COLUMN     "requested_by" TEXT,
ADD COLUMN     "table_ident" TEXT;

-- AlterTable
ALTER TABLE "catalog_tables" ADD COLUMN     "location" TEXT;

-- CreateIndex
CREATE INDEX "catalog_purges_warehouse_id_done_at_idx" ON "catalog_purges"("warehouse_id", "done_at");

-- CreateIndex
CREATE INDEX "catalog_tables_warehouse_id_location_idx" ON "catalog_tables"("warehouse_id", "location");

-- Backfill. Every table and view the catalog made keeps its metadata files
-- under `<location>/metadata/`, so its location is that folder's parent. A
-- table whose write.metadata.path sent metadata elsewhere is corrected by its
-- next commit, which always writes the location with the pointer.
UPDATE "catalog_tables" SET "location" = regexp_replace("metadata_location", '/metadata/[^/]*$', '')
 WHERE "location" IS NULL AND "metadata_location" IS NOT NULL;

-- Purges finished before outcomes were recorded deleted their files.
UPDATE "catalog_purges" SET "outcome" = 'purged' WHERE "done_at" IS NOT NULL AND "outcome" IS NULL;
