// Queue names and job payloads shared by their producers (control plane) and
// consumers (workers). Job ids derive from the subject, so a duplicate enqueue
// or a retried request adds nothing.
import { Queue, QueueEvents, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { z } from 'zod';
import { CATALOG_PURGE_QUEUE } from './catalog-purge';
import { MAINTENANCE_QUEUE } from './maintenance';
import { METERING_QUEUE } from './metering';
import { OAUTH_PRUNE_QUEUE } from './oauth-prune';
import { ORG_ERASURE_QUEUE } from './org-erasure';
import { SINK_ROLL_QUEUE, SINK_TICK_QUEUE } from './sink-roll';
import { STORAGE_POLICY_QUEUE } from './storage-policies';
import { UPLOADER_EXPIRY_QUEUE } from './uploader-expiry';
import { TEARDOWN_QUEUE, TEARDOWN_SWEEP_QUEUE } from './teardown';

export * from './catalog-purge';
export * from './maintenance';
export * from './maintenance-rules';
export * from './maintenance-trigger';
export * from './metering';
export * from './oauth-prune';
export * from './org-erasure';
export * from './sink-roll';
export * from './storage-policies';
export * from './uploader-expiry';
export * from './teardown';

export const QUEUES = {
  provisioning: 'provisioning',
  credentials: 'credentials',
  teardown: TEARDOWN_QUEUE,
  teardownSweep: TEARDOWN_SWEEP_QUEUE,
  metering: METERING_QUEUE,
  sinkRoll: SINK_ROLL_QUEUE,
  sinkTick: SINK_TICK_QUEUE,
  catalogPurge: CATALOG_PURGE_QUEUE,
  orgErasure: ORG_ERASURE_QUEUE,
  uploaderExpiry: UPLOADER_EXPIRY_QUEUE,
  oauthPrune: OAUTH_PRUNE_QUEUE,
  storagePolicies: STORAGE_POLICY_QUEUE,
  maintenance: MAINTENANCE_QUEUE,
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Retry a warehouse's storage probe until it passes or `until` (ISO) has gone by. */
export const ProvisioningJob = z.object({ warehouse_id: z.string(), until: z.string() });
export type ProvisioningJob = z.infer<typeof ProvisioningJob>;

/** Retire a rotated-out read-only catalog credential (and audit `warehouse.rotate_complete`). */
export const RetireCredentialJob = z.object({
  warehouse_id: z.string(),
  client_id: z.string(),
  rotated_by: z.string().nullable(),
  org_id: z.string().nullable(),
  request_id: z.string().nullable(),
});
export type RetireCredentialJob = z.infer<typeof RetireCredentialJob>;

/** Seconds between provisioning attempts, and how long they go on (the spec: every 30 s for 10 minutes). */
export const PROVISIONING_RETRY_SECONDS = 30;
export const PROVISIONING_WINDOW_SECONDS = 600;
/** How long after a rotate the old read-only key is retired. */
export const RO_RETIREMENT_DELAY_SECONDS = 10;

/** BullMQ's connection options from a redis:// URL; every stack's keys live under its own prefix. */
export function queueConnection(redisUrl: string): ConnectionOptions {
  const u = new URL(redisUrl);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username || undefined,
    password: u.password || undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined,
    maxRetriesPerRequest: null,
  };
}

/** BullMQ's key prefix for a stack (no trailing colon: BullMQ adds its own). */
export const queuePrefix = (redisPrefix: string) => `${redisPrefix}bull`;

/** What a deployable that consumes and produces jobs holds: BullMQ's connection options, its key prefix, and a producer over them. */
export function queueDeps(redisUrl: string, redisPrefix: string): { connection: ConnectionOptions; prefix: string; producers: Producers } {
  const connection = queueConnection(redisUrl);
  const prefix = queuePrefix(redisPrefix);
  return { connection, prefix, producers: new Producers(connection, prefix) };
}

export class Producers {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly events = new Map<QueueName, QueueEvents>();
  constructor(private readonly connection: ConnectionOptions, private readonly prefix: string) {}

  private queue(name: QueueName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefix });
      this.queues.set(name, q);
    }
    return q;
  }

  async add(name: QueueName, jobName: string, data: unknown, opts: JobsOptions & { jobId: string }): Promise<void> {
    await this.queue(name).add(jobName, data, { removeOnComplete: 1000, removeOnFail: 1000, ...opts });
  }

  /** Removes a waiting, delayed or failed job; false when there was none, or it is running. */
  async remove(name: QueueName, jobId: string): Promise<boolean> {
    return (await this.queue(name).remove(jobId)) === 1;
  }

  /** Where a job stands (`waiting`, `delayed`, `active`, `failed`, …), or `unknown` when there is none of that id. */
  async state(name: QueueName, jobId: string): Promise<string> {
    return this.queue(name).getJobState(jobId);
  }

  /**
   * Adds a job and waits for its worker's answer (its return value), up to
   * `timeoutMs`: a request answered by a worker (a maintenance dry run). A job
   * that fails or takes too long rejects; nothing waits for it afterwards.
   */
  async addAndWait(name: QueueName, jobName: string, data: unknown, opts: JobsOptions & { jobId: string }, timeoutMs: number): Promise<unknown> {
    let events = this.events.get(name);
    if (!events) {
      events = new QueueEvents(name, { connection: this.connection, prefix: this.prefix });
      this.events.set(name, events);
    }
    await events.waitUntilReady();
    const job = await this.queue(name).add(jobName, data, opts);
    return job.waitUntilFinished(events, timeoutMs);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values(), ...this.events.values()].map((q) => q.close()));
  }
}
