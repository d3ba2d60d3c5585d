import { DelayedError, type Job } from 'bullmq';
import { TeardownJob } from '@floe/queues';
import { uploaderUidPrefix } from '@floe/storage';
import { revokeUploadersOf } from './store/uploaders';
import type { WorkerDeps } from './deps';
import { beginTeardown, dropCatalogTables, finishTeardown, recordStorageStep, teardownView, type TeardownView } from './store/teardown';

// The `teardown` job: a deleted catalog's tables and storage removed once its
// grace period is over. Steps, each recorded on the row before the next, so a
// worker killed mid-job is resumed by the next attempt from where it stopped
// (tests/fault/teardown-crash.test.ts), and every storage call is idempotent:
//   1. begin (queued → tables), only past the grace period; a restored
//      catalog, or one a restore is bringing back, is left alone;
//   2. tables: the catalog's tables, views and namespaces dropped;
//   3. storage: uploader identities, the read/write and read-only identities
//      (their keys and policies with them), the role and its policy, then
//      both buckets emptied (objects, versions, unfinished uploads) and removed;
//   4. done: status `deleted`, the tombstone complete, `warehouse.delete_complete`.

type StorageSteps = Record<string, unknown>;

export async function teardownWarehouse(d: WorkerDeps, job: Job, token?: string): Promise<string> {
  const { warehouse_id: id } = TeardownJob.parse(job.data);
  let w = await teardownView(d.prisma, id);
  if (!w || w.status !== 'deleting') return 'nothing to do';

  // begin
  if (w.step === 'queued' || w.step === 'restoring') {
    const from = w.step;
    if (!w.due || (from === 'restoring' && !w.restoreLapsed)) return delayUntil(job, token, w);
    if (!(await beginTeardown(d.prisma, id, from))) return delayUntil(job, token, w);
    d.logger.info('catalog teardown begins', { warehouse_id: id });
    w = (await teardownView(d.prisma, id))!;
  }

  // tables
  if (w.step === 'tables') {
    const dropped = await dropCatalogTables(d.prisma, id, w.tombstone.buckets.table);
    d.logger.info('catalog tables dropped', { warehouse_id: id, ...dropped });
    maybeCrash(d, 'after_tables');
    w = (await teardownView(d.prisma, id))!;
  }

  // storage
  const done: StorageSteps = { ...(w.tombstone.storage ?? {}) };
  const step = async (name: string, run: () => Promise<unknown>) => {
    if (name in done) return;
    done[name] = await run();
    await recordStorageStep(d.prisma, id, name, done[name]);
  };
  await step('uploaders', async () => {
    const uids = await d.storage.listIdentities(uploaderUidPrefix(id));
    for (const uid of uids) await d.storage.revokeUploader(uid);
    await revokeUploadersOf(d.prisma, id);
    return uids.length;
  });
  await step('identity', () => d.storage.deleteIdentity(w!.storageUid));
  await step('identity_ro', () => d.storage.deleteIdentity(w!.storageRoUid));
  maybeCrash(d, 'after_identities');
  await step('role', () => d.storage.deleteRole(w!.roleName));
  await step('table_bucket', () => d.storage.removeBucket(w!.tombstone.buckets.table));
  await step('blob_bucket', () => d.storage.removeBucket(w!.tombstone.buckets.blob));

  // done
  const finished = await finishTeardown(d.prisma, (await teardownView(d.prisma, id))!, done);
  if (finished) d.logger.info('catalog torn down', { warehouse_id: id, storage: done });
  return finished ? 'deleted' : 'finished elsewhere';
}

/** Not due yet (or a restore is under way): the job waits until the grace period's end, at least a few seconds. */
async function delayUntil(job: Job, token: string | undefined, w: TeardownView): Promise<never> {
  const at = Math.max(Date.now() + 5_000, (w.teardownAfter?.getTime() ?? 0) + 1_000);
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}

/** The fault tests' hook (FLOE_TEARDOWN_CRASH_AT): the process ends here, exit code 86, mid-job. */
function maybeCrash(d: WorkerDeps, stage: 'after_tables' | 'after_identities'): void {
  if (d.config.teardown.crashAt === stage) process.exit(86);
}
