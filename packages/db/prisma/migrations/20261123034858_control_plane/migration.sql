-- AlterTable
ALTER TABLE "catalog_credentials" ADD COLUMN     "secret_nonce" TEXT;

-- AlterTable
ALTER TABLE "warehouses" ADD COLUMN     "provision_until" TIMESTAMPTZ(3),
ADD COLUMN     "public_by" TEXT,
ADD COLUMN     "public_since" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "organizations" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "domain_join" BOOLEAN NOT NULL DEFAULT false,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "org_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "joined_via" TEXT NOT NULL,
    "confined" BOOLEAN NOT NULL DEFAULT true,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("org_id","principal_id")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "org_id" TEXT,
    "owner_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "warehouse_grants" (
    "warehouse_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "level" TEXT NOT NULL,
    "granted_by" TEXT,
    "granted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "warehouse_grants_pkey" PRIMARY KEY ("warehouse_id","principal_id")
);

-- CreateTable
CREATE TABLE "usage_samples" (
    "id" BIGSERIAL NOT NULL,
    "warehouse_id" TEXT NOT NULL,
    "measured_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "source" TEXT NOT NULL,
    "table_bytes" BIGINT NOT NULL,
    "blob_bytes" BIGINT NOT NULL,
    "objects" BIGINT NOT NULL,
    "blob_objects" BIGINT NOT NULL,
    "complete" BOOLEAN NOT NULL,

    CONSTRAINT "usage_samples_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "organizations_handle_key" ON "organizations"("handle");

-- CreateIndex
CREATE INDEX "memberships_principal_id_idx" ON "memberships"("principal_id");

-- CreateIndex
CREATE INDEX "projects_org_id_idx" ON "projects"("org_id");

-- CreateIndex
CREATE INDEX "projects_owner_id_idx" ON "projects"("owner_id");

-- CreateIndex
CREATE INDEX "warehouse_grants_principal_id_idx" ON "warehouse_grants"("principal_id");

-- CreateIndex
CREATE INDEX "usage_samples_warehouse_id_measured_at_idx" ON "usage_samples"("warehouse_id", "measured_at");

-- CreateIndex
CREATE INDEX "warehouses_project_id_idx" ON "warehouses"("project_id");

-- CreateIndex
CREATE INDEX "warehouses_org_id_idx" ON "warehouses"("org_id");
