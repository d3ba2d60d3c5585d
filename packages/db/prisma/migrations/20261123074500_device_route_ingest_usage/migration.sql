-- AlterTable
ALTER TABLE "sinks" ADD COLUMN     "device_options" JSONB,
ADD COLUMN     "device_token_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "ingest_usage" (
    "sink_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "warehouse_id" TEXT NOT NULL,
    "batches" INTEGER NOT NULL DEFAULT 0,
    "device_batches" INTEGER NOT NULL DEFAULT 0,
    "rows" BIGINT NOT NULL DEFAULT 0,
    "rejected" BIGINT NOT NULL DEFAULT 0,
    "ingest_bytes" BIGINT NOT NULL DEFAULT 0,
    "stored_bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "ingest_usage_pkey" PRIMARY KEY ("sink_id","day")
);

-- CreateIndex
CREATE INDEX "ingest_usage_warehouse_id_day_idx" ON "ingest_usage"("warehouse_id", "day");

-- Backfill: batches received before intake was metered count with their stored bytes.
INSERT INTO "ingest_usage" ("sink_id", "day", "warehouse_id", "batches", "rows", "rejected", "ingest_bytes", "stored_bytes")
SELECT b."sink_id", (b."received_at" AT TIME ZONE 'UTC')::date, s."warehouse_id", count(*), sum(b."accepted"), sum(b."rejected"), sum(b."bytes"), sum(b."bytes")
  FROM "sink_batches" b JOIN "sinks" s ON s."id" = b."sink_id"
 GROUP BY 1, 2, 3;
