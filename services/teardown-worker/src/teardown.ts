import { DelayedError, type Job } from 'bullmq';
import { type TeardownError, revokeUploadersOf, beginTeardown, dropCatalogTables, finishTeardown, recordStorageStep, recordTeardownError, teardownView, type TeardownView } from '@floe/catalogs';
import type { TeardownJob } from '@floe/queues';
import { StorageError, uploaderUidPrefix } from '@floe/storage';
import type { WorkerDeps } from './deps';

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
// An attempt that fails is recorded in the tombstone (`teardown_error`: what,
// where, how often), so GET /v1/warehouses/{id} shows why the catalog is still
// `deleting`; BullMQ retries it with backoff, and once the job's retries are
// used up the teardown sweep (teardown-sweep.ts) queues it again.

type StorageSteps = Record<string, unknown>;

/** What a teardown touches: the rows, the store, the log, and the fault tests' crash point. */
export type TeardownDeps = Pick<WorkerDeps, 'prisma' | 'storage' | 'logger'> & { config: Pick<WorkerDeps['config'], 'teardown'> };

/** `job` and `token` are the running job's: a catalog not due yet moves it back to delayed. */
export async function teardownWarehouse(d: TeardownDeps, { warehouse_id: id }: TeardownJob, job: Job, token?: string): Promise<string> {
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

  const at = { step: w.step === 'tables' ? 'tables' : 'storage' };
  try {
    return await removeEverything(d, w, at);
  } catch (err) {
    await recordFailure(d, job, id, at.step, err);
    throw err;
  }
}

/** Steps 2 to 4; `at.step` follows the step under way, for the record of a failure. */
async function removeEverything(d: TeardownDeps, view: TeardownView, at: { step: string }): Promise<string> {
  const id = view.id;
  let w = view;

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
    at.step = name;
    done[name] = await run();
    await recordStorageStep(d.prisma, id, name, done[name]);
  };
  await step('uploaders', async () => {
    const uids = await d.storage.listIdentities(uploaderUidPrefix(id));
    for (const uid of uids) await d.storage.revokeUploader(uid);
    await revokeUploadersOf(d.prisma, id);
    return uids.length;
  });
  await step('identity', () => d.storage.deleteIdentity(w.storageUid));
  await step('identity_ro', () => d.storage.deleteIdentity(w.storageRoUid));
  maybeCrash(d, 'after_identities');
  await step('role', () => d.storage.deleteRole(w.roleName));
  await step('table_bucket', () => d.storage.removeBucket(w.tombstone.buckets.table));
  await step('blob_bucket', () => d.storage.removeBucket(w.tombstone.buckets.blob));

  // done
  at.step = 'done';
  const finished = await finishTeardown(d.prisma, (await teardownView(d.prisma, id))!, done);
  if (finished) d.logger.info('catalog torn down', { warehouse_id: id, storage: done });
  return finished ? 'deleted' : 'finished elsewhere';
}

/**
 * A failed attempt, in the tombstone; at error level once the job has no
 * retry left (every failed attempt is also logged by the worker as a failed job).
 */
async function recordFailure(d: TeardownDeps, job: Job, id: string, step: string, err: unknown): Promise<void> {
  // attemptsMade counts the attempts that failed before this one.
  const attempts = job.attemptsMade + 1;
  const error: TeardownError = {
    // A storage error's message names the operation and never the store's internals; anything else stays in the log.
    message: err instanceof StorageError ? err.message : 'an internal error; the teardown worker logged it',
    step,
    attempts,
    failed_at: new Date().toISOString(),
    gave_up: attempts >= (job.opts.attempts ?? 1),
  };
  await recordTeardownError(d.prisma, id, error).catch((e) => {
    d.logger.warn('a failed teardown attempt could not be recorded', { warehouse_id: id, err: (e as Error).message });
  });
  if (error.gave_up) {
    d.logger.error('catalog teardown used up its retries; the teardown sweep queues it again within the hour', {
      warehouse_id: id, step, attempts, err: (err as Error).message,
    });
  }
}

/** Not due yet (or a restore is under way): the job waits until the grace period's end, at least a few seconds. */
async function delayUntil(job: Job, token: string | undefined, w: TeardownView): Promise<never> {
  const at = Math.max(Date.now() + 5_000, (w.teardownAfter?.getTime() ?? 0) + 1_000);
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}

/** The fault tests' hook (FLOE_TEARDOWN_CRASH_AT): the process ends here, exit code 86, mid-job. */
function maybeCrash(d: TeardownDeps, stage: 'after_tables' | 'after_identities'): void {
  if (d.config.teardown.crashAt === stage) process.exit(86);
}
