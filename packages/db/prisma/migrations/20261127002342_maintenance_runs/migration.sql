-- CreateTable
CREATE TABLE "maintenance_runs" (
    "id" TEXT NOT NULL,
    "warehouse_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "table_name" TEXT NOT NULL,
    "table_uuid" TEXT,
    "kind" TEXT NOT NULL,
    "trigger" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "before" JSONB,
    "after" JSONB,
    "freed_bytes" BIGINT NOT NULL DEFAULT 0,
    "snapshot_id" BIGINT,
    "requested_by" TEXT,
    "job_id" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "maintenance_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "maintenance_runs_warehouse_id_namespace_table_name_started__idx" ON "maintenance_runs"("warehouse_id", "namespace", "table_name", "started_at");
