-- CreateTable
CREATE TABLE "device_logins" (
    "id" TEXT NOT NULL,
    "device_code_hash" TEXT NOT NULL,
    "user_code" TEXT NOT NULL,
    "client" TEXT NOT NULL,
    "hostname" TEXT,
    "client_name" TEXT NOT NULL,
    "requested_level" TEXT NOT NULL,
    "requested" JSONB NOT NULL DEFAULT '[]',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "interval_seconds" INTEGER NOT NULL DEFAULT 5,
    "last_polled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_ip" TEXT,
    "decided_by" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "org_id" TEXT,
    "grants" JSONB,
    "claimed_at" TIMESTAMPTZ(3),
    "agent_id" TEXT,
    "key_id" TEXT,

    CONSTRAINT "device_logins_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "device_logins_device_code_hash_key" ON "device_logins"("device_code_hash");

-- CreateIndex
CREATE UNIQUE INDEX "device_logins_user_code_key" ON "device_logins"("user_code");

-- CreateIndex
CREATE INDEX "device_logins_expires_at_idx" ON "device_logins"("expires_at");
