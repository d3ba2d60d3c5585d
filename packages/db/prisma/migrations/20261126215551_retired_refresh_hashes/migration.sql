-- CreateTable
CREATE TABLE "retired_refresh_hashes" (
    "hash" TEXT NOT NULL,
    "session_id" TEXT,
    "family_id" TEXT,
    "retired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retired_refresh_hashes_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE INDEX "retired_refresh_hashes_session_id_idx" ON "retired_refresh_hashes"("session_id");

-- CreateIndex
CREATE INDEX "retired_refresh_hashes_family_id_idx" ON "retired_refresh_hashes"("family_id");

-- AddForeignKey
ALTER TABLE "retired_refresh_hashes" ADD CONSTRAINT "retired_refresh_hashes_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "retired_refresh_hashes" ADD CONSTRAINT "retired_refresh_hashes_family_id_fkey" FOREIGN KEY ("family_id") REFERENCES "oauth_grants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
