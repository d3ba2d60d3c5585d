import { rejectsPrefix } from '@floe/ingest';
import { sinksWithRejects } from '@floe/ingest/ledger-store';
import type { StorageProvider, StoreCredentials } from '@floe/storage';
import type { RollerDeps } from './deps';

// Reject files age out after 7 days (spec: Limits). A lifecycle rule cannot
// do it: the blob bucket's lifecycle configuration belongs to the user, who
// replaces it whole. So each roll removes its sink's expired reject files,
// and an hourly sweep does the same for every sink that ever wrote one — a
// sink that stopped rolling (idle, disabled, deleted) included.

export const REJECT_RETENTION_DAYS = 7;

export function expiredKeys(objects: Array<{ key: string; lastModified: Date | null }>, now: number, days = REJECT_RETENTION_DAYS): string[] {
  const cutoff = now - days * 86_400_000;
  return objects.filter((o) => o.lastModified && o.lastModified.getTime() < cutoff).map((o) => o.key);
}

/**
 * Deletes the expired reject files under `prefix` as the warehouse's
 * identity, which wrote them; returns how many. One DELETE per object (the
 * provider's deleteKeys): RGW refuses this identity the multi-object delete.
 */
export async function ageOutRejects(storage: Pick<StorageProvider, 'listObjects' | 'deleteKeys'>, as: StoreCredentials, bucket: string, prefix: string, now = Date.now()): Promise<number> {
  let removed = 0;
  let token: string | undefined;
  do {
    const page = await storage.listObjects(bucket, { prefix, delimiter: '', token, maxKeys: 1000 }, as);
    const keys = expiredKeys(page.objects, now);
    if (keys.length) {
      await storage.deleteKeys(bucket, keys, as);
      removed += keys.length;
    }
    token = page.nextToken ?? undefined;
  } while (token);
  return removed;
}

/** The sweep: every sink with reject files, as its catalog's identity; a sink that fails is logged and the sweep goes on. Returns how many files went. */
export async function ageOutAllRejects(d: Pick<RollerDeps, 'prisma' | 'storage' | 'keyring' | 'logger'>, now = Date.now()): Promise<number> {
  let removed = 0;
  for (const s of await sinksWithRejects(d.prisma)) {
    const as = { accessKeyId: s.accessKeyId, secretAccessKey: d.keyring.open(s.sealedSecretKey) };
    removed += await ageOutRejects(d.storage, as, s.blobBucket, rejectsPrefix(s.sinkId), now).catch((err) => {
      d.logger.warn('reject files could not be aged out', { sink_id: s.sinkId, err: (err as Error).message });
      return 0;
    });
  }
  return removed;
}
