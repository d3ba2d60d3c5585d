import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type TombstoneRecord, liveCredentials, revokeCredentials, requireCatalogRoom, lockCreationScope, type CatalogCredentialPair, type CatalogSecrets, storageStep, activeUploaderIdentities, recordStoragePolicies, claimRestore, handBackRestore, liveNamesake, lockForRestore, markRestored } from '@floe/catalogs';
import { releaseHeldGrants } from '@floe/accounts';
import { bumpCredentialEpoch } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import { conflict, HttpError, type Logger } from '@floe/http';
import { meteringJobs, QUEUES, teardownJobId, type Producers } from '@floe/queues';
import { applyWarehousePolicies, unsealIdentities, type StorageProvider } from '@floe/storage';

// POST /v1/warehouses/{id}/restore (Floe's own shape): a catalog deleted
// within its grace period comes back with its tables and data (teardown had
// not begun, so nothing was removed), its grants, and a fresh pair of catalog
// credentials (the old pair stays refused). The order of steps:
//   1. claim, under the row's lock and the creation scope's lock: still
//      deleted (409 `not_deleted` once another restore brought it back), no
//      other restore under way (409 `not_restorable` with Retry-After 5
//      while another holds its lease), still restorable (409
//      `not_restorable` once teardown began or the grace ended), the name
//      still free (409 `already_exists`), the project under its catalog
//      limit (409 `limit_exceeded`); `teardown_step` → restoring, so teardown
//      can no longer begin, held by this request for RESTORE_LEASE_SECONDS;
//   2. the storage unsealed: identities reinstated, the current storage
//      policies put (packages/storage warehouse-policies.ts), the role's
//      permissions back with every session issued before the deletion
//      still refused (a failure hands the claim back: 502 `storage_error`,
//      retry);
//   3. one transaction, only while the claim is still this request's:
//      status as before the deletion, grants back in force, old credentials
//      revoked, a new pair issued (a failure hands the claim back);
//   4. the queued teardown removed;
//   5. its first usage sample queued at once (the metering worker's
//      `measure` job, source `creation`, keyed by the restore): the deletion
//      removed its samples, and it would otherwise show `unmetered` until the
//      next hourly sweep.
// So of any number of concurrent restores one restores (one pair, one
// audit); a restore that died mid-way holds nothing once its lease lapses.
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
  /** Its first usage sample is queued (false: the queue refused; the next sweep measures it). */
  measurementQueued: boolean;
}

/** How long a restore's claim holds before another restore may take it over (the storage steps take seconds). */
export const RESTORE_LEASE_SECONDS = 120;

const LIVE = ['creating', 'provisioning', 'ready'];

export async function restoreWarehouse(d: RestoreDeps, t: TombstoneRecord, w: {
  storageUid: string; storageRoUid: string; roleName: string; tableBucket: string; blobBucket: string;
}): Promise<Restoration> {
  // claim
  const previousStatus = t.tombstone?.previous_status === 'provisioning' ? 'provisioning' : 'ready';
  const claimId = randomUUID();
  await d.prisma.$transaction(async (tx) => {
    await lockCreationScope(tx, t.orgId ?? t.projectOwner ?? t.id);
    const claim = await lockForRestore(tx, t.id);
    if (claim.status !== null && LIVE.includes(claim.status)) throw notDeleted(t);
    if (claim.status === 'deleting' && claim.restoreHeld) throw restoreUnderWay(t);
    // 'restoring' here is a claim whose lease lapsed: its restore died, this one takes it over.
    if (claim.status !== 'deleting' || claim.teardownStep === null || !['queued', 'restoring'].includes(claim.teardownStep) || !claim.withinGrace) {
      throw notRestorable(t, claim.status === 'deleted' ? 'it was torn down' : claim.teardownStep && !['queued', 'restoring'].includes(claim.teardownStep) ? 'its teardown has begun' : 'its grace period has ended');
    }
    const namesake = await liveNamesake(tx, { id: t.id, name: t.name, orgId: t.orgId, ownerId: t.projectOwner });
    if (namesake) {
      throw conflict('already_exists', `a live catalog named ${t.name} exists now; delete or rename it first`, { warehouse_id: namesake.id, name: t.name });
    }
    if (t.projectId) await requireCatalogRoom(tx, { projectId: t.projectId, orgId: t.orgId, ownerId: t.projectOwner });
    await claimRestore(tx, t.id, claimId, RESTORE_LEASE_SECONDS);
  }, { maxWait: 10_000, timeout: 15_000 });

  // unseal the storage
  const sessionsValidAfter = t.requestedAt ?? new Date();
  try {
    await storageStep(async () => {
      await unsealIdentities(d.storage, { id: t.id, ...w });
      // The role's permissions back, refusing every session vended before the deletion; the current policies on everything.
      await applyWarehousePolicies(d.storage, { id: t.id, ...w, sessionsValidAfter, uploaders: await activeUploaderIdentities(d.prisma, t.id) }, { role: true });
    });
  } catch (err) {
    await handBackRestore(d.prisma, t.id, claimId).catch(() => undefined);
    throw err;
  }

  // bring it back, only while the claim is still this request's (a lapsed one may have been taken over)
  let restored: Restoration;
  try {
    restored = await d.prisma.$transaction(async (tx) => {
      if (!(await markRestored(tx, t.id, previousStatus, claimId))) {
        const now = await lockForRestore(tx, t.id);
        throw now.status !== null && LIVE.includes(now.status) ? notDeleted(t) : notRestorable(t, 'its restore took too long and was taken over, or teardown began');
      }
      await recordStoragePolicies(tx, t.id, sessionsValidAfter);
      const grantsRestored = await releaseHeldGrants(tx, t.id, t.orgId);
      const old = (await liveCredentials(tx, t.id)).map((c) => c.clientId);
      await revokeCredentials(tx, old);
      const pair = await d.secrets.issuePair(tx, t.id);
      return { pair, grantsRestored, previousClientIds: old, restoredAt: new Date(), measurementQueued: false };
    }, { maxWait: 10_000, timeout: 15_000 });
  } catch (err) {
    await handBackRestore(d.prisma, t.id, claimId).catch(() => undefined);
    throw err;
  }
  await bumpCredentialEpoch(d.redis, d.redisPrefix);
  // A teardown job still queued would find the catalog live and do nothing; removing it lets a later deletion queue its own.
  await d.queues.remove(QUEUES.teardown, teardownJobId(t.id)).catch((err) => {
    d.logger.warn('the restored catalog\'s teardown job could not be removed; it will find the catalog live', { warehouse_id: t.id, err: (err as Error).message });
  });
  const measurementQueued = await d.queues.enqueue(meteringJobs.measure, { warehouse_id: t.id, source: 'creation', restored_at: restored.restoredAt.toISOString() }).then(() => true, (err) => {
    d.logger.warn('the restored catalog\'s first usage sample could not be queued; the hourly sweep measures it', { warehouse_id: t.id, err: (err as Error).message });
    return false;
  });
  return { ...restored, measurementQueued };
}

function notRestorable(t: TombstoneRecord, why: string) {
  return conflict('not_restorable', `catalog ${t.name} cannot be restored: ${why}`, { warehouse_id: t.id, state: t.status });
}

/** 409 `not_deleted`: the catalog is live (never deleted, or restored meanwhile). */
export function notDeleted(w: { id: string; name: string }) {
  return conflict('not_deleted', `catalog ${w.name} is not deleted; there is nothing to restore`, { warehouse_id: w.id });
}

/** 409 `not_restorable` while another request's restore holds its claim: a retry answers `not_deleted` once it is done. */
function restoreUnderWay(t: TombstoneRecord) {
  return new HttpError(409, 'not_restorable', `catalog ${t.name} is being restored by another request; retry in a few seconds (it answers not_deleted once that restore is done)`, {
    warehouse_id: t.id, state: 'restoring', retry_after_seconds: 5,
  }, { 'Retry-After': '5' });
}

export const RESTORE_NOTE = 'The catalog is back with its tables, data and grants. Its old catalog credentials stay refused: use the new pair (shown once; GET /v1/connection hands it out again). A catalog that was public is private now.';
