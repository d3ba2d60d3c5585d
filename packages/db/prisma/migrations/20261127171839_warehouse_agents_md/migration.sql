-- AlterTable
ALTER TABLE "warehouses" ADD COLUMN     "agents_md" TEXT,
ADD COLUMN     "agents_md_etag" TEXT,
ADD COLUMN     "agents_md_updated_at" TIMESTAMPTZ(3),
ADD COLUMN     "agents_md_updated_by" TEXT;
