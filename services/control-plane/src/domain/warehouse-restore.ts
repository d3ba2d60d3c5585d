import type { Redis } from 'ioredis';
import { bumpCredentialEpoch } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import { conflict, limitExceeded, type Logger } from '@floe/http';
import { QUEUES, teardownJobId, type Producers } from '@floe/queues';
import { unsealIdentities, type StorageProvider } from '@floe/storage';
import { liveCredentials, revokeCredentials } from '../store/catalog-credentials';
import { countedInProject, lockCreationScope } from '../store/warehouse-creation';
import { liveNamesake, lockForRestore, markRestored, releaseHeldGrants, setTeardownStep } from '../store/warehouse-restore';
import type { TombstoneRecord } from '../store/warehouses';
import type { CatalogCredentialPair, CatalogSecrets } from './catalog-credentials';
import { effectiveLimits } from '@floe/db/limits';
import { storageStep } from './storage-step';

// POST /v1/warehouses/{id}/restore (Floe's own shape): a catalog deleted
// within its grace period comes back with its tables and data (teardown had
// not begun, so nothing was removed), its grants, and a fresh pair of catalog
// credentials (the old pair stays refused). The order of steps:
//   1. claim, under the row's lock and the creation scope's lock: still
//      restorable (409 `not_restorable` once teardown began or the grace
//      ended), the name still free (409 `already_exists`), the project under
//      its catalog limit (409 `limit_exceeded`); `teardown_step` → restoring,
//      so teardown can no longer begin;
//   2. the storage unsealed: identities reinstated, the role's permissions
//      back (a failure hands the claim back: 502 `storage_error`, retry);
//   3. one transaction: grants back in force, old credentials revoked, a new
//      pair issued, status as before the deletion;
//   4. the queued teardown removed.
// The public-read policy is not put back: a restored catalog is private.

export interface RestoreDeps {
  prisma: PrismaClient;
  redis: Redis;
  redisPrefix: string;
  queues: Producers;
  storage: StorageProvider;
  secrets: CatalogSecrets;
  logger: Logger;
}

export interface Restoration {
  pair: CatalogCredentialPair;
  grantsRestored: number;
  previousClientIds: string[];
  restoredAt: Date;
}

export async function restoreWarehouse(d: RestoreDeps, t: TombstoneRecord, w: {
  storageUid: string; storageRoUid: string; roleName: string; tableBucket: string; blobBucket: string;
}): Promise<Restoration> {
  // claim
  const previousStatus = t.tombstone?.previous_status === 'provisioning' ? 'provisioning' : 'ready';
  await d.prisma.$transaction(async (tx) => {
    await lockCreationScope(tx, t.orgId ?? t.projectOwner ?? t.id);
    const claim = await lockForRestore(tx, t.id);
    if (claim.status !== 'deleting' || claim.teardownStep === null || !['queued', 'restoring'].includes(claim.teardownStep) || !claim.withinGrace) {
      throw notRestorable(t, claim.status === 'deleted' ? 'it was torn down' : claim.teardownStep && !['queued', 'restoring'].includes(claim.teardownStep) ? 'its teardown has begun' : 'its grace period has ended');
    }
    const namesake = await liveNamesake(tx, { id: t.id, name: t.name, orgId: t.orgId, ownerId: t.projectOwner });
    if (namesake) {
      throw conflict('already_exists', `a live catalog named ${t.name} exists now; delete or rename it first`, { warehouse_id: namesake.id, name: t.name });
    }
    if (t.projectId) {
      const counted = await countedInProject(tx, t.projectId);
      const { limits } = await effectiveLimits(tx, t.orgId);
      if (counted >= limits.warehouses_per_project) {
        throw limitExceeded(`a project holds at most ${limits.warehouses_per_project} catalogs`, {
          limit: 'warehouses_per_project', limit_value: limits.warehouses_per_project, current: counted,
        });
      }
    }
    await setTeardownStep(tx, t.id, claim.teardownStep, 'restoring');
  }, { maxWait: 10_000, timeout: 15_000 });

  // unseal the storage
  try {
    await storageStep(async () => {
      await unsealIdentities(d.storage, { id: t.id, ...w });
      await d.storage.ensureRole({ roleName: w.roleName, trustedUids: [w.storageUid, w.storageRoUid], buckets: [w.tableBucket, w.blobBucket] });
    });
  } catch (err) {
    await setTeardownStep(d.prisma, t.id, 'restoring', 'queued').catch(() => undefined);
    throw err;
  }

  // bring it back
  const restored = await d.prisma.$transaction(async (tx) => {
    const grantsRestored = await releaseHeldGrants(tx, t.id, t.orgId);
    const old = (await liveCredentials(tx, t.id)).map((c) => c.clientId);
    await revokeCredentials(tx, old);
    const pair = await d.secrets.issuePair(tx, t.id);
    await markRestored(tx, t.id, previousStatus);
    return { pair, grantsRestored, previousClientIds: old, restoredAt: new Date() };
  }, { maxWait: 10_000, timeout: 15_000 });
  await bumpCredentialEpoch(d.redis, d.redisPrefix);
  // A teardown job still queued would find the catalog live and do nothing; removing it lets a later deletion queue its own.
  await d.queues.remove(QUEUES.teardown, teardownJobId(t.id)).catch((err) => {
    d.logger.warn('the restored catalog\'s teardown job could not be removed; it will find the catalog live', { warehouse_id: t.id, err: (err as Error).message });
  });
  return restored;
}

function notRestorable(t: TombstoneRecord, why: string) {
  return conflict('not_restorable', `catalog ${t.name} cannot be restored: ${why}`, { warehouse_id: t.id, state: t.status });
}

export const RESTORE_NOTE = 'The catalog is back with its tables, data and grants. Its old catalog credentials stay refused: use the new pair (shown once; GET /v1/connection hands it out again). A catalog that was public is private now.';
