-- CreateTable
CREATE TABLE "org_limits" (
    "org_id" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT 'free',
    "overrides" JSONB NOT NULL DEFAULT '{}',
    "note" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by" TEXT,

    CONSTRAINT "org_limits_pkey" PRIMARY KEY ("org_id")
);

-- CreateTable
CREATE TABLE "org_limits_audit" (
    "id" BIGSERIAL NOT NULL,
    "org_id" TEXT NOT NULL,
    "actor_id" TEXT,
    "plan" TEXT NOT NULL,
    "previous_plan" TEXT NOT NULL,
    "overrides" JSONB NOT NULL,
    "previous_overrides" JSONB NOT NULL,
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "org_limits_audit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "org_limits_audit_org_id_created_at_idx" ON "org_limits_audit"("org_id", "created_at");
