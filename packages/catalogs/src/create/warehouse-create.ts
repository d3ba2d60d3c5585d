import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { type AccessContext, requireUnconfined } from '@floe/accounts';
import type { PrismaClient } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';
import { badRequest, conflict, HttpError, type Logger, quotaExceeded, quotaScopeOf, writeAudit } from '@floe/http';
import type { FloeConfig } from '@floe/config';
import { meteringJobs, PROVISIONING_WINDOW_SECONDS, provisioningJobs, type Producers } from '@floe/queues';
import { StorageError, warehouseBuckets, type ProbeResult, type StorageProvider } from '@floe/storage';
import { effectiveLimits } from '@floe/db/limits';
import type { CatalogSecrets } from '../credentials/catalog-credentials';
import type { ProjectRow } from '../project-records';
import { scopeStoredBytes } from '../usage-records';
import { warehouseById, type WarehouseRecord } from '../warehouses';
import { isValidCatalogName, suggestCatalogName } from './catalog-names';
import { requireCatalogRoom } from './catalog-room';
import { deletedOwnerOfBucket, finishCreation, insertClaimed, lockCreationScope, nameHolder, orgHandle, releaseClaim, renewClaim, takeOverClaim, type NameHolder } from './creation-records';
import { probeStorage, provisionStorage, roleNameOf, storageUidOf } from './provisioning';
import { storageStep } from './storage-step';

// POST /v1/warehouses (and onboarding's `lake`). The order of steps:
//   1. validate the name and derive the buckets (nothing written);
//   2. claim: in one short transaction under the scope's lock, check the name,
//      the limit and the quota, and insert the row as `creating` claimed by
//      this request for a lease, or take over a `creating` row whose claim
//      was released (a failed attempt) or ran out (a creator that died);
//   3. only the claimant makes the storage and the catalog credentials
//      (every step idempotent), renewing its lease between steps;
//   4. probe the storage, then end `creating` while still holding the claim;
//   5. queue the first usage sample (the metering worker, about 120 s later).
// Both buckets carry a hard quota at the scope's storage limit from step 3 on.
// Concurrent creates of one name therefore make the storage once and answer
// one 201; the others are 409 `creation_in_progress` while the claim stands
// and `already_exists` after. A failed attempt releases its claim, so the
// retry (with the same Idempotency-Key, or any) finishes the same warehouse.

/** How long a claim stands without renewal; past it the creator is taken for dead. Longer than any one storage step. */
export const CREATION_LEASE_SECONDS = 120;

export interface CreateWarehouseDeps {
  db: Pool;
  prisma: PrismaClient;
  storage: StorageProvider;
  keyring: Keyring;
  secrets: CatalogSecrets;
  queues: Producers;
  logger: Logger;
  config: Pick<FloeConfig, 'metering'>;
}

export interface CreateWarehouseInput {
  name: string;
  formatVersion: 2 | 3;
  /** The request's id: the claim's holder. */
  requestId: string;
}

export interface CreatedWarehouse {
  warehouse: WarehouseRecord;
  status: 'ready' | 'provisioning';
  probe: ProbeResult;
}

export async function createWarehouse(
  d: CreateWarehouseDeps, ctx: AccessContext, project: ProjectRow, input: CreateWarehouseInput,
): Promise<CreatedWarehouse> {
  // authorize: a confined token acts only within its grants, so it makes no catalog (a person or an admin-role agent does)
  requireUnconfined(ctx, project.orgId, 'creating a catalog');

  // validate
  const { name } = input;
  if (!isValidCatalogName(name)) {
    throw badRequest('invalid_name', `${JSON.stringify(name)} is not a valid catalog name: lowercase letters, digits and single underscores, starting with a letter and not ending in _`, {
      field: 'name', suggestion: suggestCatalogName(name),
    });
  }
  const owner = project.orgId ? { handle: await orgHandle(d.prisma, project.orgId) } : { principalId: project.ownerId };
  const buckets = warehouseBuckets(owner, name);
  if (!buckets.ok) {
    throw badRequest('name_too_long_for_bucket', `bucket names are at most 63 characters; with ${buckets.ownerPart} a catalog name may have ${buckets.maxNameLength}`, {
      field: 'name', max_name_length: buckets.maxNameLength, bucket_would_be: buckets.bucketWouldBe,
    });
  }

  await refuseLeftoverBucket(d, buckets.table, buckets.blob);

  // claim
  const claim = input.requestId;
  const { id, tableBucket, blobBucket } = await claimCreation(d, ctx, project, { name, table: buckets.table, blob: buckets.blob, formatVersion: input.formatVersion }, claim);

  // make the storage, as the claimant only
  try {
    await provisionStorage(d.storage, d.prisma, d.keyring, { id, name, tableBucket, blobBucket });
    const { limits } = await effectiveLimits(d.prisma, project.orgId);
    for (const bucket of [tableBucket, blobBucket]) await d.storage.setBucketQuota(bucket, limits.storage_bytes);
    if (!(await renewClaim(d.prisma, id, claim, CREATION_LEASE_SECONDS))) throw creationInProgress(name);
    await d.secrets.issuePair(d.prisma, id, id);
  } catch (err) {
    await releaseClaim(d.prisma, id, claim).catch(() => undefined);
    if (err instanceof StorageError) {
      d.logger.warn('warehouse storage could not be made', { request_id: input.requestId, warehouse_id: id, err: err.message });
      throw new HttpError(502, 'storage_error', 'the object store did not complete the catalog\'s storage; retry with the same Idempotency-Key (it is safe)', {
        retry_after_seconds: 5, remedy: 'retry the same request; the catalog is finished where it stopped',
      }, { 'Retry-After': '5' });
    }
    throw err;
  }

  // probe, then end `creating` while the claim is still ours
  const probe = await probeStorage(d.storage, d.prisma, d.keyring, { id, tableBucket, blobBucket });
  const status = probe.ok ? 'ready' : 'provisioning';
  if (!(await finishCreation(d.prisma, id, claim, status, PROVISIONING_WINDOW_SECONDS))) throw creationInProgress(name);
  if (!probe.ok) {
    const until = new Date(Date.now() + PROVISIONING_WINDOW_SECONDS * 1000).toISOString();
    await d.queues.enqueue(provisioningJobs.probe, { warehouse_id: id, until });
  }
  await queueFirstSample(d, id);
  return { warehouse: (await warehouseById(d.prisma, id, ctx.principalId))!, status, probe };
}

/**
 * Step 2: the name, limit and quota checks and the claim, under the scope's
 * lock. Returns the row the caller now holds, with the buckets it records (a
 * row taken over keeps its own).
 */
async function claimCreation(
  d: CreateWarehouseDeps, ctx: AccessContext, project: ProjectRow,
  w: { name: string; table: string; blob: string; formatVersion: 2 | 3 }, claim: string,
): Promise<{ id: string; tableBucket: string; blobBucket: string }> {
  try {
    return await d.prisma.$transaction(async (tx) => {
      await lockCreationScope(tx, project.orgId ?? project.ownerId);
      const holder = await nameHolder(tx, { name: w.name, orgId: project.orgId, ownerId: project.ownerId, tableBucket: w.table });
      let takeOver: NameHolder | null = null;
      if (holder) {
        if (holder.status === 'deleted') {
          throw conflict('bucket_leftover_from_deletion', `the bucket ${holder.tableBucket} of a deleted catalog still holds this name`, {
            bucket: holder.tableBucket, remedy: 'choose another name, or ask the operator to remove the leftover bucket',
          });
        }
        if (holder.status === 'deleting') {
          throw new HttpError(409, 'name_reserved_until_teardown', `a catalog named ${w.name} is being deleted; its name is free once teardown ends`,
            { retry_after_seconds: 5, bucket: holder.tableBucket }, { 'Retry-After': '5' });
        }
        if (holder.status !== 'creating') {
          throw conflict('already_exists', `a catalog named ${w.name} already exists${project.orgId ? ' in this organisation' : ''}`, {
            bucket: holder.tableBucket, warehouse_id: holder.id,
          });
        }
        if (holder.claimHeld) throw creationInProgress(w.name);
        takeOver = holder;
      }

      const limits = await requireCatalogRoom(tx, { projectId: project.id, orgId: project.orgId, ownerId: project.ownerId }, takeOver?.id ?? null);
      const bytes = await scopeStoredBytes(tx, project.orgId, project.ownerId);
      if (bytes >= limits.storage_bytes) {
        throw quotaExceeded('the storage limit is reached; delete data or ask for a higher limit', {
          current: bytes, limit_value: limits.storage_bytes, scope: quotaScopeOf(project.orgId),
        });
      }

      if (takeOver) {
        // Under the scope's lock no other create can have claimed it since nameHolder read it.
        if (!(await takeOverClaim(tx, takeOver.id, { projectId: project.id, createdBy: ctx.principalId, formatVersion: w.formatVersion }, claim, CREATION_LEASE_SECONDS))) {
          throw creationInProgress(w.name);
        }
        return { id: takeOver.id, tableBucket: takeOver.tableBucket, blobBucket: takeOver.blobBucket };
      }
      const id = randomUUID();
      const uid = storageUidOf(id);
      await insertClaimed(tx, {
        id, name: w.name, projectId: project.id, orgId: project.orgId, tableBucket: w.table, blobBucket: w.blob, formatVersion: w.formatVersion,
        storageUid: uid, storageRoUid: `${uid}-ro`, roleName: roleNameOf(id), createdBy: ctx.principalId,
      }, claim, CREATION_LEASE_SECONDS);
      return { id, tableBucket: w.table, blobBucket: w.blob };
    }, { maxWait: 10_000, timeout: 15_000 });
  } catch (err) {
    // The refusal is audited outside the rolled-back transaction.
    if (err instanceof HttpError && err.code === 'quota_exceeded') {
      await writeAudit(d.db, null, {
        action: 'quota.reject', actorId: ctx.principalId, actorKind: ctx.kind, orgId: project.orgId, targetType: 'project', targetId: project.id,
        data: { operation: 'warehouse.create', current: err.extras.current, limit_value: err.extras.limit_value },
      });
    }
    throw err;
  }
}

/**
 * 409 `bucket_leftover_from_deletion`: a deleted catalog had these buckets
 * and one of them is still on the store (its teardown could not remove it, or
 * it came back). Creating would adopt a bucket with another catalog's objects.
 */
async function refuseLeftoverBucket(d: Pick<CreateWarehouseDeps, 'prisma' | 'storage'>, table: string, blob: string): Promise<void> {
  const owner = await deletedOwnerOfBucket(d.prisma, table);
  if (!owner) return;
  const left = await storageStep(async () => {
    for (const bucket of [table, blob]) if (await d.storage.bucketExists(bucket)) return bucket;
    return null;
  });
  if (left) {
    throw conflict('bucket_leftover_from_deletion', `the bucket ${left} of a deleted catalog is still on the store`, {
      bucket: left, deleted_warehouse_id: owner.id, remedy: 'choose another name, or ask the operator to remove the leftover bucket',
    });
  }
}

/** Step 5. A lost job costs only the early sample: the sweep measures every live catalog within its interval. */
async function queueFirstSample(d: Pick<CreateWarehouseDeps, 'queues' | 'logger' | 'config'>, warehouseId: string): Promise<void> {
  await d.queues.enqueue(meteringJobs.measure, { warehouse_id: warehouseId, source: 'creation' }, { delay: d.config.metering.firstSampleSeconds * 1000 }).catch((err: Error) => d.logger.warn('the first usage sample could not be queued', { warehouse_id: warehouseId, err: err.message }));
}

function creationInProgress(name: string): HttpError {
  return new HttpError(409, 'creation_in_progress', `a catalog named ${name} is being created`, { retry_after_seconds: 5 }, { 'Retry-After': '5' });
}
