-- CreateTable
CREATE TABLE "catalog_purges" (
    "id" BIGSERIAL NOT NULL,
    "warehouse_id" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimed_at" TIMESTAMPTZ(3),
    "done_at" TIMESTAMPTZ(3),
    "objects" INTEGER,

    CONSTRAINT "catalog_purges_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "catalog_purges_done_at_requested_at_idx" ON "catalog_purges"("done_at", "requested_at");
