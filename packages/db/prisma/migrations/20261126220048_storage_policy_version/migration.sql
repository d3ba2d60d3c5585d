-- AlterTable
ALTER TABLE "warehouses" ADD COLUMN     "sessions_valid_after" TIMESTAMPTZ(3),
ADD COLUMN     "storage_policy_version" INTEGER NOT NULL DEFAULT 0;
