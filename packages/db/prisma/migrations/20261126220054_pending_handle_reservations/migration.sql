-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "reserved_from" TEXT,
ADD COLUMN     "reserved_until" TIMESTAMPTZ(3);

-- Reservations made before this lapse three days after they were made (the set-password link's life).
UPDATE "organizations" SET "reserved_until" = "created_at" + interval '3 days' WHERE "status" = 'pending';

-- CreateIndex
CREATE INDEX "organizations_reserved_from_idx" ON "organizations"("reserved_from");
