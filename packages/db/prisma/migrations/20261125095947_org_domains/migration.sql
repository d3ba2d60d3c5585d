-- CreateTable
CREATE TABLE "org_domains" (
    "domain" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "claimed_by" TEXT NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "org_domains_pkey" PRIMARY KEY ("domain")
);

-- CreateIndex
CREATE INDEX "org_domains_org_id_idx" ON "org_domains"("org_id");
