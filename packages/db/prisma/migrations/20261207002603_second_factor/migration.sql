-- CreateTable
CREATE TABLE "totp_factors" (
    "principal_id" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "enabled_at" TIMESTAMPTZ(3),
    "last_step" BIGINT,

    CONSTRAINT "totp_factors_pkey" PRIMARY KEY ("principal_id")
);

-- CreateTable
CREATE TABLE "backup_codes" (
    "hash" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "backup_codes_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE INDEX "backup_codes_principal_id_idx" ON "backup_codes"("principal_id");

-- AddForeignKey
ALTER TABLE "totp_factors" ADD CONSTRAINT "totp_factors_principal_id_fkey" FOREIGN KEY ("principal_id") REFERENCES "principals"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "backup_codes" ADD CONSTRAINT "backup_codes_principal_id_fkey" FOREIGN KEY ("principal_id") REFERENCES "principals"("id") ON DELETE CASCADE ON UPDATE CASCADE;
