import type { PrismaClient } from '@floe/db';
import { fromS3Rule, toS3Rule, type LifecycleRuleView, type StorageProvider } from '@floe/storage';
import { storageStep } from '@floe/catalogs';
import { underLifecycleLock } from '../../store/lifecycle-lock';
import type { ParsedLifecycle } from './lifecycle-rules';

// A warehouse's lifecycle: the S3 lifecycle configuration of its BLOB bucket,
// never its table bucket (expiring table files would corrupt tables; the
// internal lifecycle audit checks no table bucket has one). Set, read and
// cleared as the bucket's owner, the service's admin user: no tenant identity
// may change bucket configuration. Set and clear run one at a time per
// catalog (the store refuses concurrent changes to one bucket's lifecycle).

export const LIFECYCLE_NOTE = 'Rules apply to the blob bucket only. Objects are deleted up to 24 h after they are due, permanently.';

export type LifecycleDeps = { storage: Pick<StorageProvider, 'putLifecycle' | 'getLifecycle' | 'deleteLifecycle' | 'getLifecycleXml'> };
type BlobBucket = { blobBucket: string };
type Catalog = BlobBucket & { id: string };

/** Replaces the configuration; answers the rules as stored and how many there were before (for the audit). */
export async function setLifecycle(d: LifecycleDeps & { prisma: PrismaClient }, w: Catalog, parsed: ParsedLifecycle): Promise<{ rules: LifecycleRuleView[]; previousCount: number }> {
  return underLifecycleLock(d.prisma, w.id, () => storageStep(async () => {
    const before = await d.storage.getLifecycle(w.blobBucket);
    await d.storage.putLifecycle(w.blobBucket, parsed.rules);
    return { rules: parsed.rules.map((r, i) => fromS3Rule(toS3Rule(r, i))), previousCount: before.rules.length };
  }));
}

export async function readLifecycle(d: LifecycleDeps, w: BlobBucket, includeXml: boolean): Promise<{ configured: boolean; rules: LifecycleRuleView[]; xml?: string | null }> {
  return storageStep(async () => {
    const got = await d.storage.getLifecycle(w.blobBucket);
    return includeXml ? { ...got, xml: got.configured ? await d.storage.getLifecycleXml(w.blobBucket) : null } : got;
  });
}

/** Idempotent: clearing nothing answers zero rules removed. */
export async function clearLifecycle(d: LifecycleDeps & { prisma: PrismaClient }, w: Catalog): Promise<{ rulesRemoved: number }> {
  const { hadRules } = await underLifecycleLock(d.prisma, w.id, () => storageStep(() => d.storage.deleteLifecycle(w.blobBucket)));
  return { rulesRemoved: hadRules };
}
