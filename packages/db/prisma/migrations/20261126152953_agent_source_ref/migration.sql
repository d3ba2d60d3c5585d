-- AlterTable
ALTER TABLE "memberships" ADD COLUMN     "source_ref" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "memberships_org_id_source_ref_key" ON "memberships"("org_id", "source_ref");
