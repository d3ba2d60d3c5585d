-- A warehouse being created is claimed by one request (its request id) until
-- a lease ends: only the claimant makes the storage, so concurrent creates of
-- one name answer 409 instead of racing to provision it. A `creating` row
-- left by an older version has no claim and is taken over by the next create.
-- AlterTable
ALTER TABLE "warehouses" ADD COLUMN     "creation_claim" TEXT,
ADD COLUMN     "creation_lease_until" TIMESTAMPTZ(3);
