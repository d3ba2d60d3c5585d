import type { ConnectionOptions } from 'bullmq';
import type { Pool } from 'pg';
import { claimPurge, finishPurge, overlappingHolder, type PurgeJob } from '@floe/catalog-store';
import type { Keyring } from '@floe/db/sealed';
import { writeAudit, type Logger } from '@floe/http';
import { CATALOG_PURGE_EVERY_MS, CATALOG_PURGE_SCHEDULER, catalogPurgeJobs, handle, schedule, startJobRunner, type JobRunner } from '@floe/queues';
import type { StorageProvider } from '@floe/storage';
import { checkedLocation, keyPrefixOf } from './locations';
import { warehouseById } from './store/warehouses';

// The files of a table dropped with purgeRequested are removed here, after
// the drop answered. A purge deletes only what the dropped table owned
// exclusively: its location must still be a valid location of its
// warehouse's own table bucket, and no live table or view may hold anything
// equal to, inside or around it. It deletes as the warehouse's own storage
// identity, never the service's, so even a wrong location could reach
// nothing outside the warehouse's buckets. Each purge is logged with table,
// location and object count, and audited as `table.purge`. Passes run as
// a BullMQ job scheduler (packages/queues catalog-purge.ts): one for the cluster.

export interface PurgeDeps {
  db: Pool;
  storage: StorageProvider;
  keyring: Keyring;
  logger: Logger;
}

/** One pass: claims and finishes at most one purge; true when it did one. */
export async function purgeOnce(d: PurgeDeps): Promise<boolean> {
  const job = await claimPurge(d.db);
  if (!job) return false;
  const wh = await warehouseById(d.db, d.keyring, job.warehouseId);
  const refusal = wh ? await refusalOf(d, job, wh.tableBucket) : 'the warehouse is gone (its teardown removes its buckets)';
  let objects = 0;
  if (!refusal) ({ objectsDeleted: objects } = await d.storage.deletePrefix(wh!.tableBucket, keyPrefixOf(job.location, wh!.tableBucket), wh!.rw));
  const outcome = refusal ? `refused: ${refusal}` : 'purged';
  await finishPurge(d.db, job.id, outcome, objects);
  const fields = { warehouse_id: job.warehouseId, table: job.tableIdent, location: job.location, objects, outcome };
  if (refusal) d.logger.warn('table purge refused', fields);
  else d.logger.info('table purged', fields);
  await writeAudit(d.db, null, {
    action: 'table.purge', actorId: job.requestedBy, actorKind: 'catalog_credential', orgId: wh?.orgId ?? null,
    targetType: 'table', targetId: job.tableIdent, data: fields,
  });
  return true;
}

/** Why this location is not the dropped table's alone to delete; null when it is. */
async function refusalOf(d: PurgeDeps, job: PurgeJob, bucket: string): Promise<string | null> {
  try {
    checkedLocation(job.location, bucket, 'The location');
  } catch (err) {
    return (err as Error).message;
  }
  const holder = await overlappingHolder(d.db, job.warehouseId, job.location, { purge: job.id });
  if (!holder) return null;
  return `${holder.location} is also held by ${holder.kind === 'purge' ? `the dropped table ${holder.identifier}` : `the ${holder.kind} ${holder.identifier}`}`;
}

/** Upserts the cluster's purge scheduler and runs its passes here: each pass finishes purges until none is left unclaimed, or the runner closes. */
export function startPurgeJobs(d: PurgeDeps, q: { connection: ConnectionOptions; prefix: string }): JobRunner {
  const pass = handle(catalogPurgeJobs.pass, async (_, { closing }) => {
    try {
      while (!closing.aborted && (await purgeOnce(d)));
    } catch (err) {
      d.logger.error('purge pass failed; the purge is retried once its claim lapses', { err });
    }
  }, { concurrency: 1, lockDuration: 60_000 });
  return startJobRunner({
    ...q, logger: d.logger, handlers: [pass], schedulers: [schedule(catalogPurgeJobs.pass, { id: CATALOG_PURGE_SCHEDULER, every: CATALOG_PURGE_EVERY_MS })],
  });
}
