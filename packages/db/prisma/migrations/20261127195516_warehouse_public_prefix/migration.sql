-- AlterTable
ALTER TABLE "warehouses" ADD COLUMN     "public_prefix" TEXT;
