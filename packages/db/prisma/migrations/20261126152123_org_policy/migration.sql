-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "policy" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "policy_updated_at" TIMESTAMPTZ(3),
ADD COLUMN     "policy_updated_by" TEXT;
