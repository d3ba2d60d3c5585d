-- AlterTable
ALTER TABLE "warehouses" ADD COLUMN     "deleted_by" TEXT,
ADD COLUMN     "teardown_after" TIMESTAMPTZ(3),
ADD COLUMN     "teardown_step" TEXT,
ADD COLUMN     "tombstone" JSONB;

-- CreateTable
CREATE TABLE "held_warehouse_grants" (
    "warehouse_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "level" TEXT NOT NULL,
    "granted_by" TEXT,
    "granted_at" TIMESTAMPTZ(3) NOT NULL,
    "held_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "held_warehouse_grants_pkey" PRIMARY KEY ("warehouse_id","principal_id")
);
