-- AlterTable
ALTER TABLE "sinks" ADD COLUMN     "recent_rejects" JSONB;

-- CreateIndex
CREATE INDEX "sink_batches_sink_id_committed_at_idx" ON "sink_batches"("sink_id", "committed_at");
