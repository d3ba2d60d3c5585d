-- CreateTable
CREATE TABLE "org_domain_challenges" (
    "org_id" TEXT NOT NULL,
    "domain" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "org_domain_challenges_pkey" PRIMARY KEY ("org_id","domain")
);

-- AddForeignKey
ALTER TABLE "org_domain_challenges" ADD CONSTRAINT "org_domain_challenges_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
