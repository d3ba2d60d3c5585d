-- AlterTable
ALTER TABLE "audit_events" ADD COLUMN     "coalesce_key" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "audit_events_coalesce_key_key" ON "audit_events"("coalesce_key");
