import { randomBytes } from 'node:crypto';
import { type WarehouseRecord, storageStep, activeUploaderNamed, countActiveUploaders, insertUploader, lockUploader, lockUploaderCreation, markRevoked, type UploaderRecord } from '@floe/catalogs';
import type { PrismaClient } from '@floe/db';
import { conflict, type Logger } from '@floe/http';
import { uploaderExpiryJobs, type Producers } from '@floe/queues';
import { uploaderUidPrefix, type PolicyDocument, type StorageProvider, type UploaderRevocation } from '@floe/storage';
import { UPLOADERS_PER_CATALOG } from './uploader-rules';

// POST and DELETE /v1/warehouses/{id}/uploaders. The order of steps:
//
// create: (serialised per warehouse, in one transaction) refuse a taken name,
//   refuse past the count limit, make the storage identity (user with its key,
//   then its user policy), insert the row; then queue the expiry. A storage
//   step that fails (502 `storage_error`), or a row that cannot be written,
//   undoes the identity, so nothing half-made is left behind
//   (uploaders.test.ts). Once the row is committed the uploader stands: an
//   expiry job the queue does not take is the expiry sweep's to catch, not a
//   reason to remove an identity its row still names. Twenty concurrent
//   creates of one name make one identity: the others wait for the lock and
//   then see the name taken.
// revoke: (the row locked) key deleted first, so the credential stops at once,
//   then the policy, then the identity; the row last. A failed storage step
//   leaves the row active and the revoke safe to retry. Concurrent revocations
//   wait for the lock and find the row revoked.

export interface UploaderDeps {
  prisma: PrismaClient;
  storage: StorageProvider;
  queues: Producers;
  logger: Logger;
}

export interface IamWrite {
  what: string;
  target: string;
  result: string;
}

export interface CreatedUploader {
  row: UploaderRecord;
  secretAccessKey: string;
  policy: PolicyDocument;
  iamWrites: IamWrite[];
}

/** Storage-facing id: `u-<warehouse uuid>-<8 hex>`. */
const iamUserFor = (warehouseId: string) => `${uploaderUidPrefix(warehouseId)}${randomBytes(4).toString('hex')}`;

const LOCK_WAIT = { maxWait: 15_000, timeout: 30_000 };

export async function createUploader(
  d: UploaderDeps,
  w: WarehouseRecord,
  input: { name: string; prefix: string; list: boolean; expiresAt: Date | null; createdBy: string },
): Promise<CreatedUploader> {
  const iamUser = iamUserFor(w.id);
  let made = false;
  let created: { row: UploaderRecord; identity: Awaited<ReturnType<StorageProvider['createUploader']>> };
  try {
    created = await d.prisma.$transaction(async (tx) => {
      await lockUploaderCreation(tx, w.id);
      const taken = await activeUploaderNamed(tx, w.id, input.name);
      if (taken) {
        throw conflict('already_exists', `catalog ${w.name} has an active uploader named ${input.name}; revoke it first or choose another name`, {
          uploader_id: taken.id, name: taken.name,
        });
      }
      const current = await countActiveUploaders(tx, w.id);
      if (current >= UPLOADERS_PER_CATALOG) {
        throw conflict('limit_exceeded', `catalog ${w.name} holds ${current} active uploaders, the most it may; revoke one first`, {
          limit: 'uploaders_per_catalog', limit_value: UPLOADERS_PER_CATALOG, current,
        });
      }
      made = true;
      const identity = await storageStep(() => d.storage.createUploader({
        uid: iamUser, displayName: `uploader ${input.name} of ${w.name}`, bucket: w.blobBucket, prefix: input.prefix, list: input.list,
      }));
      const row = await insertUploader(tx, {
        id: `upl_${randomBytes(12).toString('hex')}`, warehouseId: w.id, name: input.name, prefix: input.prefix, list: input.list,
        iamUser, accessKeyId: identity.accessKeyId, expiresAt: input.expiresAt, createdBy: input.createdBy,
      });
      return { row, identity };
    }, LOCK_WAIT);
  } catch (err) {
    // Whatever part of the identity exists goes again; the uid is this request's own, so nothing else is touched.
    if (made) {
      await d.storage.revokeUploader(iamUser).catch((e) => {
        // Left to the catalog's teardown, which removes every `u-<warehouse>-` identity; said, so an operator can remove it sooner.
        d.logger.warn('a half-made uploader identity could not be removed', { warehouse_id: w.id, iam_user: iamUser, err: (e as Error).message });
      });
    }
    throw err;
  }
  if (input.expiresAt) {
    await queueExpiry(d.queues, created.row.id, input.expiresAt).catch((err) => {
      d.logger.warn('an uploader\'s expiry job was not queued; the expiry sweep expires it', { uploader_id: created.row.id, err: (err as Error).message });
    });
  }
  return {
    row: created.row,
    secretAccessKey: created.identity.secretAccessKey,
    policy: created.identity.policy,
    iamWrites: [
      { what: 'create_user_with_key', target: iamUser, result: created.identity.created ? 'created' : 'existing' },
      { what: 'put_user_policy', target: `${iamUser}/floe-uploader`, result: 'put' },
    ],
  };
}

/** The sweep catches an expiry whose job was lost; this one is the exact time. */
async function queueExpiry(queues: Producers, uploaderId: string, at: Date): Promise<void> {
  await queues.enqueue(uploaderExpiryJobs.expire, { uploader_id: uploaderId }, { delay: Math.max(0, at.getTime() - Date.now()) });
}

export interface Revocation {
  row: UploaderRecord;
  revoked: boolean;
  storage: { access_key: string; user_policy: string; user: string } | null;
  iamWrites: IamWrite[];
}

export async function revokeUploader(d: Pick<UploaderDeps, 'prisma' | 'storage'>, found: UploaderRecord, by: string): Promise<Revocation> {
  return d.prisma.$transaction(async (tx) => {
    const row = await lockUploader(tx, found.id);
    if (!row || row.status !== 'active') return { row: row ?? found, revoked: false, storage: null, iamWrites: [] };
    const r = await storageStep(() => d.storage.revokeUploader(row.iamUser));
    return { row: await markRevoked(tx, row.id, by), revoked: true, storage: storageSteps(r), iamWrites: revocationWrites(row.iamUser, r) };
  }, LOCK_WAIT);
}

const storageSteps = (r: UploaderRevocation) => ({ access_key: r.access_keys, user_policy: r.user_policy, user: r.user });

function revocationWrites(uid: string, r: UploaderRevocation): IamWrite[] {
  return [
    { what: 'delete_access_key', target: uid, result: r.access_keys },
    { what: 'delete_user_policy', target: `${uid}/floe-uploader`, result: r.user_policy },
    { what: 'delete_user', target: uid, result: r.user },
  ];
}
