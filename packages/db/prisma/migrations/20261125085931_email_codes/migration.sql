-- CreateTable
CREATE TABLE "email_codes" (
    "email" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "details" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "email_codes_pkey" PRIMARY KEY ("email","purpose")
);

-- CreateIndex
CREATE INDEX "email_codes_expires_at_idx" ON "email_codes"("expires_at");
