import type { Redis } from 'ioredis';
import { bumpCredentialEpoch } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import { beginDeletion, measureForDeletion, type DeletedWarehouse, type DeletionActor } from '@floe/catalogs';
import { HttpError, notFound, type Logger } from '@floe/http';
import { queueTeardown, type Producers } from '@floe/queues';
import { sealWarehouseStorage, type StorageProvider } from '@floe/storage';

// DELETE /v1/warehouses/{id} after its checks. The order of steps:
//   0. both buckets measured (packages/catalogs measureForDeletion: the
//      store's counters, two admin calls), so the tombstone's
//      `bytes_at_deletion` is what they held now; a store that does not
//      answer leaves it to the latest usage sample;
//   1. one transaction (packages/db warehouse-deletion.ts): status `deleting`,
//      grants held for restore, usage samples removed, `warehouse.delete`
//      audited — the catalog is gone from every caller's view;
//   2. the credential epoch: the catalog and identity drop every cached
//      standing, so the catalog's client credentials and the tokens minted
//      from them are refused from now on (they load `deleting` and refuse);
//   3. the teardown job, delayed by the grace period (queued before the
//      storage steps, so a crash here still ends in a teardown);
//   4. the storage sealed: identities suspended, vended sessions cut, the
//      public-read policy removed (packages/storage warehouse-seal.ts).
// Of concurrent deletions one does all this; the others are 409
// `delete_in_progress` once the first committed.

export interface DeleteDeps {
  prisma: PrismaClient;
  redis: Redis;
  redisPrefix: string;
  queues: Producers;
  storage: StorageProvider;
  logger: Logger;
  graceSeconds: number;
}

export interface Deletion {
  warehouse: DeletedWarehouse;
  /** Set when the store did not take every sealing step; teardown still removes everything. */
  warning: string | null;
}

export async function deleteWarehouse(d: DeleteDeps, warehouseId: string, actor: DeletionActor): Promise<Deletion> {
  const footprint = await measureForDeletion(d.prisma, d.storage, warehouseId).catch((err: unknown) => {
    d.logger.warn('a deleted catalog\'s buckets could not be measured; its tombstone keeps the latest usage sample', { warehouse_id: warehouseId, err: (err as Error).message });
    return null;
  });
  const begun = await beginDeletion(d.prisma, warehouseId, { graceSeconds: d.graceSeconds, reason: 'request', actor, footprint });
  if (begun.outcome !== 'deleting') {
    if (begun.outcome === 'in_progress') throw deleteInProgress(warehouseId);
    if (begun.outcome === 'deleted') throw notFound('warehouse_deleted', `warehouse ${warehouseId} was deleted`, { warehouse_id: warehouseId });
    throw notFound('warehouse_not_found', `no warehouse ${warehouseId}`);
  }
  const w = begun.warehouse;
  await bumpCredentialEpoch(d.redis, d.redisPrefix);
  await queueTeardown(d.queues, w);
  let warning: string | null = null;
  try {
    await sealWarehouseStorage(d.storage, w);
  } catch (err) {
    d.logger.warn('a deleted catalog\'s storage could not be sealed at once', { warehouse_id: w.id, err: (err as Error).message });
    warning = 'The object store did not take every step at once: a storage credential handed out earlier may work until teardown removes it.';
  }
  return { warehouse: w, warning };
}

export function deleteInProgress(warehouseId: string): HttpError {
  return new HttpError(409, 'delete_in_progress', `warehouse ${warehouseId} is being deleted`, {
    warehouse_id: warehouseId, retry_after_seconds: 5, poll: `/v1/warehouses/${warehouseId}`,
  }, { 'Retry-After': '5' });
}

export const DELETE_NOTE = 'The catalog is gone for every caller; its catalog credentials, storage identities and vended sessions are refused from now on. '
  + 'Tables and storage are removed when the grace period ends (restorable_until); until then POST /v1/warehouses/{id}/restore brings it back. '
  + 'The nightly backup copy ages out within 14 days.';
