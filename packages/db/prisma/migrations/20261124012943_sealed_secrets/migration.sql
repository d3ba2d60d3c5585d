-- The private JWK is stored sealed (a string, see packages/db/src/sealed.ts).
-- Existing keys become their JSON text here. The data migration run after the
-- SQL migrations (sealStoredSecrets) then seals them, with the warehouses'
-- secret keys. (No semicolons in these comments: the engine splits on them.)
-- AlterTable
ALTER TABLE "signing_keys" ALTER COLUMN "private_jwk" SET DATA TYPE TEXT;
