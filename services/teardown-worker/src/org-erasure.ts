import type { Redis } from 'ioredis';
import { bumpCredentialEpoch } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import { eraseOrganization } from '@floe/accounts';
import { beginDeletion, deleteProjectsOf, measureForDeletion } from '@floe/catalogs';
import type { Logger } from '@floe/http';
import { queueTeardown, type Producers } from '@floe/queues';
import { sealWarehouseStorage, type StorageProvider } from '@floe/storage';
import { catalogsOfAbandonedOrganizations, erasableOrganizations } from './store/organizations';

// The `org-erasure` job: organisations that DELETE /v1/me left without
// members are erased — their projects and their own row — once they hold no
// catalog. Their catalogs are deleted first, through the same path as
// DELETE /v1/warehouses/{id} (packages/catalogs warehouse-deletion.ts, the storage
// sealed, teardown queued after the grace period); a later pass erases the
// organisation once every teardown has ended.

export interface CatalogDeletionDeps {
  prisma: PrismaClient;
  logger: Logger;
  storage: StorageProvider;
  redis: Redis;
  config: { redisPrefix: string; teardown: { graceSeconds: number } };
  producers: Pick<Producers, 'enqueue'>;
}

/** One pass: deletes the catalogs of abandoned organisations, erases the organisations that hold none; the ids erased. */
export async function eraseAbandonedOrganizations(d: { prisma: PrismaClient; logger: Logger; deleteCatalog: (warehouseId: string) => Promise<void> }): Promise<string[]> {
  for (const id of await catalogsOfAbandonedOrganizations(d.prisma)) await d.deleteCatalog(id);
  const erased: string[] = [];
  for (const id of await erasableOrganizations(d.prisma)) {
    if (await eraseOrganization(d.prisma, id, (tx) => deleteProjectsOf(tx, id))) erased.push(id);
  }
  if (erased.length) d.logger.info('organisations left without members erased', { org_ids: erased });
  return erased;
}

/** DELETE /v1/warehouses/{id}'s path, without a caller. */
export async function deleteAbandonedCatalog(d: CatalogDeletionDeps, warehouseId: string): Promise<void> {
  const footprint = await measureForDeletion(d.prisma, d.storage, warehouseId).catch((err: unknown) => {
    d.logger.warn('an erased organisation\'s catalog could not be measured; its tombstone keeps the latest usage sample', { warehouse_id: warehouseId, err: (err as Error).message });
    return null;
  });
  const begun = await beginDeletion(d.prisma, warehouseId, {
    graceSeconds: d.config.teardown.graceSeconds, reason: 'org_erasure', actor: { principalId: null, kind: null, requestId: null, ip: null }, footprint,
  });
  if (begun.outcome !== 'deleting') return;
  await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
  await queueTeardown(d.producers, begun.warehouse);
  await sealWarehouseStorage(d.storage, begun.warehouse).catch((err) => {
    d.logger.warn('an erased organisation\'s catalog could not be sealed at once; teardown removes it', { warehouse_id: warehouseId, err: (err as Error).message });
  });
  d.logger.info('catalog of an organisation left without members deleted', { warehouse_id: warehouseId });
}
