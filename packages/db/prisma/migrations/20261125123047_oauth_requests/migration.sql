-- CreateTable
CREATE TABLE "oauth_clients" (
    "id" TEXT NOT NULL,
    "metadata" JSONB NOT NULL,
    "created_ip" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "oauth_clients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_requests" (
    "id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client" JSONB NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "state" TEXT,
    "code_challenge" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created_ip" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decision" TEXT,
    "decided_by" TEXT,
    "decided_at" TIMESTAMPTZ(3),

    CONSTRAINT "oauth_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "oauth_clients_last_used_at_idx" ON "oauth_clients"("last_used_at");

-- CreateIndex
CREATE INDEX "oauth_requests_expires_at_idx" ON "oauth_requests"("expires_at");
