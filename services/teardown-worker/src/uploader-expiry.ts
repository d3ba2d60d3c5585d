import { Queue, Worker, type Job } from 'bullmq';
import { writeAudit } from '@floe/http';
import {
  ExpireUploaderJob, UPLOADER_EXPIRY_QUEUE, UPLOADER_EXPIRY_SCHEDULER, UPLOADER_EXPIRY_SWEEP_MS, UPLOADER_SWEEP_JOB_OPTIONS,
} from '@floe/queues';
import type { WorkerDeps } from './deps';
import { dueUploaderIds, expireIfDue, orgOfWarehouse } from './store/uploaders';

// Uploader expiry (packages/queues/src/uploader-expiry.ts): at `expires_at`
// an active uploader's storage identity goes — key first, then its policy,
// then the user, as a revocation does — and the row becomes `expired`,
// audited `uploader.expire`. The delayed `expire` job of one uploader and the
// cluster's `sweep` both end here; either finding the work done does nothing.

/** Expires one uploader if it is active and due; whether it did. */
export async function expireUploader(d: Pick<WorkerDeps, 'prisma' | 'storage' | 'db' | 'logger'>, uploaderId: string): Promise<boolean> {
  const done = await expireIfDue(d.prisma, uploaderId, (u) => d.storage.revokeUploader(u.iamUser));
  if (!done) return false;
  const { u, removed } = done;
  await writeAudit(d.db, null, {
    action: 'uploader.expire', orgId: await orgOfWarehouse(d.prisma, u.warehouseId), targetType: 'uploader', targetId: u.id,
    data: {
      warehouse_id: u.warehouseId, name: u.name, iam_user: u.iamUser, access_key_id: u.accessKeyId, expires_at: u.expiresAt?.toISOString() ?? null,
      storage: { access_key: removed.access_keys, user_policy: removed.user_policy, user: removed.user },
    },
  });
  d.logger.info('uploader expired', { uploader_id: u.id, warehouse_id: u.warehouseId });
  return true;
}

async function handle(d: WorkerDeps, job: Job): Promise<string> {
  if (job.name === 'expire') return (await expireUploader(d, ExpireUploaderJob.parse(job.data).uploader_id)) ? 'expired' : 'nothing to do';
  let expired = 0;
  for (const id of await dueUploaderIds(d.prisma, new Date())) if (await expireUploader(d, id)) expired += 1;
  return `${expired} expired`;
}

/** Upserts the cluster's sweep scheduler and consumes both kinds of job. */
export async function startUploaderExpiry(d: WorkerDeps): Promise<{ queue: Queue; worker: Worker }> {
  const queue = new Queue(UPLOADER_EXPIRY_QUEUE, { connection: d.connection, prefix: d.prefix });
  const worker = new Worker(UPLOADER_EXPIRY_QUEUE, (job) => handle(d, job), { connection: d.connection, prefix: d.prefix, concurrency: 2 });
  worker.on('failed', (job, err) => d.logger.error('job failed', { queue: UPLOADER_EXPIRY_QUEUE, job_id: job?.id, attempts: job?.attemptsMade, err: err.message }));
  await queue.upsertJobScheduler(UPLOADER_EXPIRY_SCHEDULER, { every: UPLOADER_EXPIRY_SWEEP_MS }, { name: 'sweep', opts: UPLOADER_SWEEP_JOB_OPTIONS });
  return { queue, worker };
}
