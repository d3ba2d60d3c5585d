-- CreateTable
CREATE TABLE "sinks" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "warehouse_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "table_name" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "disabled_reason" TEXT,
    "roll_seconds" INTEGER NOT NULL DEFAULT 300,
    "roll_bytes" BIGINT NOT NULL DEFAULT 67108864,
    "inactivity_seconds" INTEGER,
    "send_key_id" TEXT NOT NULL,
    "send_key_hash" TEXT NOT NULL,
    "device_token_hash" TEXT,
    "table_changes_applied" BOOLEAN NOT NULL DEFAULT false,
    "last_roll" JSONB,
    "rejected_rows" BIGINT NOT NULL DEFAULT 0,
    "reject_files" INTEGER NOT NULL DEFAULT 0,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "sinks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sink_batches" (
    "sink_id" TEXT NOT NULL,
    "batch_id" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "bytes" INTEGER NOT NULL,
    "accepted" INTEGER NOT NULL,
    "rejected" INTEGER NOT NULL,
    "via" TEXT NOT NULL DEFAULT 'send',
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "committed_at" TIMESTAMPTZ(3),
    "snapshot_id" TEXT,

    CONSTRAINT "sink_batches_pkey" PRIMARY KEY ("sink_id","batch_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sinks_send_key_id_key" ON "sinks"("send_key_id");

-- CreateIndex
CREATE UNIQUE INDEX "sinks_device_token_hash_key" ON "sinks"("device_token_hash");

-- CreateIndex
CREATE INDEX "sinks_warehouse_id_idx" ON "sinks"("warehouse_id");

-- CreateIndex
CREATE INDEX "sink_batches_sink_id_state_received_at_idx" ON "sink_batches"("sink_id", "state", "received_at");
