-- CreateTable
CREATE TABLE "warehouses" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "project_id" TEXT,
    "org_id" TEXT,
    "table_bucket" TEXT NOT NULL,
    "blob_bucket" TEXT NOT NULL,
    "default_format_version" INTEGER NOT NULL DEFAULT 2,
    "status" TEXT NOT NULL DEFAULT 'provisioning',
    "storage_uid" TEXT NOT NULL,
    "storage_access_key" TEXT NOT NULL,
    "storage_secret_key" TEXT NOT NULL,
    "storage_ro_uid" TEXT NOT NULL,
    "storage_ro_access_key" TEXT NOT NULL,
    "storage_ro_secret_key" TEXT NOT NULL,
    "role_name" TEXT NOT NULL,
    "role_arn" TEXT,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "warehouses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalog_credentials" (
    "client_id" TEXT NOT NULL,
    "warehouse_id" TEXT NOT NULL,
    "access" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "catalog_credentials_pkey" PRIMARY KEY ("client_id")
);

-- CreateTable
CREATE TABLE "catalog_namespaces" (
    "warehouse_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "properties" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "catalog_namespaces_pkey" PRIMARY KEY ("warehouse_id","name")
);

-- CreateTable
CREATE TABLE "catalog_tables" (
    "id" TEXT NOT NULL,
    "warehouse_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'table',
    "metadata_location" TEXT,
    "version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "catalog_tables_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "warehouses_table_bucket_key" ON "warehouses"("table_bucket");

-- CreateIndex
CREATE UNIQUE INDEX "warehouses_blob_bucket_key" ON "warehouses"("blob_bucket");

-- CreateIndex
CREATE INDEX "warehouses_name_idx" ON "warehouses"("name");

-- CreateIndex
CREATE INDEX "catalog_credentials_warehouse_id_idx" ON "catalog_credentials"("warehouse_id");

-- CreateIndex
CREATE INDEX "catalog_tables_warehouse_id_namespace_idx" ON "catalog_tables"("warehouse_id", "namespace");

-- CreateIndex
CREATE UNIQUE INDEX "catalog_tables_warehouse_id_namespace_name_key" ON "catalog_tables"("warehouse_id", "namespace", "name");
