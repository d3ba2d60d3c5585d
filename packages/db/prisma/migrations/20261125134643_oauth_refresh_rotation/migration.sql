-- AlterTable
ALTER TABLE "oauth_grants" ADD COLUMN     "previous_refresh_hash" TEXT,
ADD COLUMN     "rotated_at" TIMESTAMPTZ(3);
