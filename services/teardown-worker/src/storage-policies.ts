import { Queue, Worker } from 'bullmq';
import type { PrismaClient } from '@floe/db';
import type { Logger } from '@floe/http';
import { STORAGE_POLICY_EVERY_MS, STORAGE_POLICY_JOB_OPTIONS, STORAGE_POLICY_QUEUE, STORAGE_POLICY_SCHEDULER } from '@floe/queues';
import { applyWarehousePolicies, STORAGE_POLICY_VERSION, type StorageProvider } from '@floe/storage';
import type { WorkerDeps } from './deps';
import { catalogsBehind, withCatalogHeld } from './store/storage-policies';

// The storage-policy sweep (packages/queues/src/storage-policies.ts): every
// catalog whose storage carries policies older than STORAGE_POLICY_VERSION
// gets the current ones (packages/storage warehouse-policies.ts), one catalog
// at a time under its row's lock. A catalog the store refuses is logged and
// left behind for the next pass; the others go on.

export interface PolicySweepDeps {
  prisma: PrismaClient;
  storage: StorageProvider;
  logger: Logger;
}

const PAGE = 100;

/** One pass: how many catalogs it brought up to date, and how many the store refused. */
export async function applyCurrentStoragePolicies(d: PolicySweepDeps, version = STORAGE_POLICY_VERSION): Promise<{ updated: number; failed: number }> {
  let updated = 0;
  let failed = 0;
  let after = '';
  for (;;) {
    const ids = await catalogsBehind(d.prisma, version, after, PAGE);
    if (ids.length === 0) break;
    for (const id of ids) {
      try {
        const steps = await withCatalogHeld(d.prisma, id, version, (w, target) => applyWarehousePolicies(d.storage, w, { role: target === 'live' }));
        if (steps) {
          updated += 1;
          d.logger.info('storage policies applied', { warehouse_id: id, version, steps });
        }
      } catch (err) {
        failed += 1;
        d.logger.error('storage policies could not be applied; the next pass tries again', { warehouse_id: id, version, err: (err as Error).message });
      }
    }
    after = ids[ids.length - 1];
  }
  return { updated, failed };
}

/** Upserts the cluster's hourly scheduler and consumes its passes. */
export async function startStoragePolicySweep(d: WorkerDeps): Promise<{ queue: Queue; worker: Worker }> {
  const queue = new Queue(STORAGE_POLICY_QUEUE, { connection: d.connection, prefix: d.prefix });
  const worker = new Worker(STORAGE_POLICY_QUEUE, () => applyCurrentStoragePolicies(d), { connection: d.connection, prefix: d.prefix, concurrency: 1 });
  worker.on('failed', (job, err) => d.logger.error('job failed', { queue: STORAGE_POLICY_QUEUE, job_id: job?.id, err: err.message }));
  await queue.upsertJobScheduler(STORAGE_POLICY_SCHEDULER, { every: STORAGE_POLICY_EVERY_MS }, { name: 'pass', opts: STORAGE_POLICY_JOB_OPTIONS });
  return { queue, worker };
}
