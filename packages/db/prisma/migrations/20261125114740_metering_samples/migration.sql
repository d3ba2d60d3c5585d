-- AlterTable
ALTER TABLE "usage_samples" ADD COLUMN     "stale_after" TIMESTAMPTZ(3),
ADD COLUMN     "traffic_counted" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "usage_traffic_hours" (
    "warehouse_id" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "requests" BIGINT NOT NULL,
    "bytes_in" BIGINT NOT NULL,
    "bytes_out" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_traffic_hours_pkey" PRIMARY KEY ("warehouse_id","hour")
);
