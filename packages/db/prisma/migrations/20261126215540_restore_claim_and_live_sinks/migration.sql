-- Issue 27: a restore's claim with a lease (one restore at a time; a restore
-- that died is taken over once its lease lapses), and the sinks' rules as
-- constraints over live rows: one sink per table, one name per catalog. A
-- database holding duplicate live sinks must have them resolved before this
-- applies (the index creation refuses them).

-- AlterTable
ALTER TABLE "warehouses" ADD COLUMN     "restore_claim" TEXT,
ADD COLUMN     "restore_lease_until" TIMESTAMPTZ(3);

-- CreateIndex
CREATE UNIQUE INDEX "sinks_live_table_key" ON "sinks"("warehouse_id", "namespace", "table_name") WHERE (state <> 'deleted');

-- CreateIndex
CREATE UNIQUE INDEX "sinks_live_name_key" ON "sinks"("warehouse_id", "name") WHERE (state <> 'deleted');
