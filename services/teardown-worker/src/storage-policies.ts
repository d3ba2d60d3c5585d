import type { PrismaClient } from '@floe/db';
import type { Logger } from '@floe/http';
import { applyWarehousePolicies, STORAGE_POLICY_VERSION, type StorageProvider } from '@floe/storage';
import { catalogsBehind, withCatalogHeld } from '@floe/catalogs';

// The storage-policy sweep (packages/queues/src/storage-policies.ts): every
// catalog whose storage carries policies older than STORAGE_POLICY_VERSION
// gets the current ones (packages/storage warehouse-policies.ts), one catalog
// at a time under its row's lock. A catalog the store refuses is logged and
// left behind for the next pass; the others go on.

export interface PolicySweepDeps {
  prisma: PrismaClient;
  storage: StorageProvider;
  logger: Logger;
}

const PAGE = 100;

/** One pass: how many catalogs it brought up to date, and how many the store refused. */
export async function applyCurrentStoragePolicies(d: PolicySweepDeps, version = STORAGE_POLICY_VERSION): Promise<{ updated: number; failed: number }> {
  let updated = 0;
  let failed = 0;
  let after = '';
  for (;;) {
    const ids = await catalogsBehind(d.prisma, version, after, PAGE);
    if (ids.length === 0) break;
    for (const id of ids) {
      try {
        const steps = await withCatalogHeld(d.prisma, id, version, (w, target) => applyWarehousePolicies(d.storage, w, { role: target === 'live' }));
        if (steps) {
          updated += 1;
          d.logger.info('storage policies applied', { warehouse_id: id, version, steps });
        }
      } catch (err) {
        failed += 1;
        d.logger.error('storage policies could not be applied; the next pass tries again', { warehouse_id: id, version, err: (err as Error).message });
      }
    }
    after = ids[ids.length - 1];
  }
  return { updated, failed };
}
