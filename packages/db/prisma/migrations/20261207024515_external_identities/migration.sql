-- CreateTable
CREATE TABLE "external_identities" (
    "id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "external_identities_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "external_identities_issuer_subject_key" ON "external_identities"("issuer", "subject");

-- CreateIndex
CREATE UNIQUE INDEX "external_identities_principal_id_issuer_key" ON "external_identities"("principal_id", "issuer");

-- AddForeignKey
ALTER TABLE "external_identities" ADD CONSTRAINT "external_identities_principal_id_fkey" FOREIGN KEY ("principal_id") REFERENCES "principals"("id") ON DELETE CASCADE ON UPDATE CASCADE;
