-- AlterTable
ALTER TABLE "warehouses" ADD COLUMN     "read_only_since" TIMESTAMPTZ(3);
