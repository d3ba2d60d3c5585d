-- AlterTable
ALTER TABLE "device_logins" ADD COLUMN     "requested_role" TEXT NOT NULL DEFAULT 'member',
ADD COLUMN     "role" TEXT;
