import type { Pool } from 'pg';
import type { Logger } from '@floe/http';
import type { RgwStorage } from '@floe/storage';
import { parseS3Location } from './metadata-files';
import { withTransaction } from '@floe/http';

// DELETE …/tables/{table}?purgeRequested=true records the table's location
// with the drop, in one transaction; this loop then removes every file under
// it. Claims use SKIP LOCKED so replicas share the work, and a claim older
// than five minutes (a crashed replica) is taken over.

const EVERY_MS = 2_000;

export async function recordDropWithPurge(pool: Pool, tableId: string, warehouseId: string, location: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query(`DELETE FROM catalog_tables WHERE id = $1`, [tableId]);
    await client.query(`INSERT INTO catalog_purges (warehouse_id, location) VALUES ($1, $2)`, [warehouseId, location]);
  });
}

/** One pass: claims and finishes at most one purge; true when it did one. */
export async function purgeOnce(pool: Pool, storage: RgwStorage): Promise<boolean> {
  const { rows } = await pool.query<{ id: string; location: string }>(
    `UPDATE catalog_purges SET claimed_at = now()
      WHERE id = (SELECT id FROM catalog_purges
                   WHERE done_at IS NULL AND (claimed_at IS NULL OR claimed_at < now() - interval '5 minutes')
                   ORDER BY requested_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, location`,
  );
  const job = rows[0];
  if (!job) return false;
  const { bucket, key } = parseS3Location(job.location.endsWith('/') ? job.location : `${job.location}/`);
  const { objectsDeleted } = await storage.deletePrefix(bucket, key);
  await pool.query(`UPDATE catalog_purges SET done_at = now(), objects = $2 WHERE id = $1`, [job.id, objectsDeleted]);
  return true;
}

export function startPurgeLoop(pool: Pool, storage: RgwStorage, logger: Logger): () => void {
  let stopped = false;
  const tick = async () => {
    try {
      while (!stopped && (await purgeOnce(pool, storage)));
    } catch (err) {
      logger.error('purge pass failed; retried on the next pass', { err: (err as Error).message });
    }
    if (!stopped) timer = setTimeout(tick, EVERY_MS);
  };
  let timer = setTimeout(tick, EVERY_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
