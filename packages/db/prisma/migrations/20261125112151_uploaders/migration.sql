-- CreateTable
CREATE TABLE "uploaders" (
    "id" TEXT NOT NULL,
    "warehouse_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "list" BOOLEAN NOT NULL DEFAULT false,
    "iam_user" TEXT NOT NULL,
    "access_key_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT,
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_by" TEXT,

    CONSTRAINT "uploaders_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "uploaders_iam_user_key" ON "uploaders"("iam_user");

-- CreateIndex
CREATE INDEX "uploaders_warehouse_id_status_idx" ON "uploaders"("warehouse_id", "status");

-- CreateIndex
CREATE INDEX "uploaders_status_expires_at_idx" ON "uploaders"("status", "expires_at");
