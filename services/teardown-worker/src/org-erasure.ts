import { Queue, Worker } from 'bullmq';
import type { PrismaClient } from '@floe/db';
import type { Logger } from '@floe/http';
import { ORG_ERASURE_EVERY_MS, ORG_ERASURE_JOB_OPTIONS, ORG_ERASURE_QUEUE, ORG_ERASURE_SCHEDULER } from '@floe/queues';
import type { WorkerDeps } from './deps';
import { eraseOrganization, erasableOrganizations } from './store/organizations';

// The `org-erasure` job: organisations that DELETE /v1/me left without
// members are erased — their projects and their own row — once they hold no
// catalog (a catalog is erased by catalog deletion's teardown, which comes
// with a later issue; until then an organisation with a catalog waits).

/** One pass: erases what it can; the ids erased. */
export async function eraseAbandonedOrganizations(d: { prisma: PrismaClient; logger: Logger }): Promise<string[]> {
  const erased: string[] = [];
  for (const id of await erasableOrganizations(d.prisma)) {
    if (await eraseOrganization(d.prisma, id)) erased.push(id);
  }
  if (erased.length) d.logger.info('organisations left without members erased', { org_ids: erased });
  return erased;
}

/** Upserts the cluster's hourly scheduler and consumes its passes. */
export async function startOrgErasure(d: WorkerDeps): Promise<{ passes: Queue; worker: Worker }> {
  const passes = new Queue(ORG_ERASURE_QUEUE, { connection: d.connection, prefix: d.prefix });
  const worker = new Worker(ORG_ERASURE_QUEUE, () => eraseAbandonedOrganizations(d), { connection: d.connection, prefix: d.prefix, concurrency: 1 });
  await passes.upsertJobScheduler(ORG_ERASURE_SCHEDULER, { every: ORG_ERASURE_EVERY_MS }, { name: 'pass', opts: ORG_ERASURE_JOB_OPTIONS });
  return { passes, worker };
}
