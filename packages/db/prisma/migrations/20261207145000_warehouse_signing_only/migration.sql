-- AlterTable
ALTER TABLE "warehouses" ADD COLUMN     "signing_only" BOOLEAN NOT NULL DEFAULT false;
