import { createHash } from 'node:crypto';
import type { Db } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';
import { badRequest } from '@floe/http';
import { StorageError, type ListedObject, type StorageProvider } from '@floe/storage';
import { readOnlyKeys, readWriteKeys, storageStep } from '@floe/catalogs';

// The blob bucket's files: list, presign, upload, delete. Each acts as the
// narrowest identity that can: listing and presigned reads as the warehouse's
// read-only identity (`t-<uuid>-ro`), uploads and deletes as its read/write
// identity; never the service's admin user. Presigned URLs are signed for the
// store's public address (`s3_url`), the one clients reach.

/** The presigned GET that `urls=1` adds to each listed object. */
export const LIST_URL_SECONDS = 900;
export const PRESIGN = { min: 30, max: 3600, default: 900 } as const;
/** Objects deleted per DELETE by prefix: one listing page; `more` says to call again. */
export const DELETE_PAGE = 1000;

export interface BlobDeps {
  prisma: Db;
  keyring: Keyring;
  storage: Pick<StorageProvider, 'listObjects' | 'presignGet' | 'deleteKeys' | 'objectsAs'>;
  /** The store's public address. */
  s3Url: string;
}

type BlobWarehouse = { id: string; blobBucket: string };

export interface ListedBlob extends ListedObject {
  url?: string;
}

export async function listBlobs(
  d: BlobDeps, w: BlobWarehouse, q: { prefix: string; delimiter: string; token?: string; maxKeys: number; urls: boolean },
): Promise<{ objects: ListedBlob[]; folders: string[]; nextToken: string | null; urlsExpireAt: Date | null }> {
  const ro = await readOnlyKeys(d.prisma, d.keyring, w.id);
  const page = await storageStep(() => d.storage.listObjects(w.blobBucket, q, ro).catch((err: unknown) => {
    // RGW reads a continuation token as the key to start after; one it cannot use is the caller's.
    if (q.token && err instanceof StorageError && err.kind === 'invalid') throw badRequest('invalid_value', 'token is not a continuation token of this listing', { field: 'token' });
    throw err;
  }));
  if (!q.urls) return { ...page, urlsExpireAt: null };
  const urlsExpireAt = new Date(Date.now() + LIST_URL_SECONDS * 1000);
  const objects = await Promise.all(page.objects.map(async (o) => ({
    ...o, url: await d.storage.presignGet({ as: ro, endpoint: d.s3Url, bucket: w.blobBucket, key: o.key, expiresInSeconds: LIST_URL_SECONDS }),
  })));
  return { objects, folders: page.folders, nextToken: page.nextToken, urlsExpireAt };
}

/** One presigned GET as the read-only identity; the object's existence is not checked (spec). */
export async function presignBlob(
  d: BlobDeps, w: BlobWarehouse, spec: { key: string; expiresInSeconds: number; contentDisposition?: string },
): Promise<{ url: string; expiresAt: Date }> {
  const ro = await readOnlyKeys(d.prisma, d.keyring, w.id);
  const signedAt = Date.now();
  const url = await d.storage.presignGet({ as: ro, endpoint: d.s3Url, bucket: w.blobBucket, ...spec });
  return { url, expiresAt: new Date(signedAt + spec.expiresInSeconds * 1000) };
}

/** A small object PUT as the warehouse's own identity; the ETag of a single PUT is the body's MD5. */
export async function uploadBlob(
  d: BlobDeps, w: BlobWarehouse, o: { key: string; body: Buffer; contentType: string },
): Promise<{ etag: string }> {
  const rw = await readWriteKeys(d.prisma, d.keyring, w.id);
  await storageStep(() => d.storage.objectsAs(rw).put(w.blobBucket, o.key, o.body, { contentType: o.contentType }));
  return { etag: createHash('md5').update(o.body).digest('hex') };
}

/**
 * Deletes one key, or one listing page of keys under a prefix, as the
 * warehouse's own identity; answers the keys that were there to delete.
 */
export async function deleteBlobs(
  d: BlobDeps, w: BlobWarehouse, what: { key: string } | { prefix: string },
): Promise<{ deleted: string[]; more: boolean }> {
  const rw = await readWriteKeys(d.prisma, d.keyring, w.id);
  return storageStep(async () => {
    const prefix = 'key' in what ? what.key : what.prefix;
    const page = await d.storage.listObjects(w.blobBucket, { prefix, delimiter: '', maxKeys: 'key' in what ? 1 : DELETE_PAGE }, rw);
    const keys = page.objects.map((o) => o.key).filter((k) => !('key' in what) || k === what.key);
    if (keys.length) await d.storage.deleteKeys(w.blobBucket, keys, rw);
    return { deleted: keys, more: 'prefix' in what && page.nextToken !== null };
  });
}
