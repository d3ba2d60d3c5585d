// Queue names, job definitions and payloads shared by their producers (the
// control plane, the catalog, the workers) and consumers (the workers). Job
// ids derive from the subject, so a duplicate enqueue or a retried request
// adds nothing.
import { CATALOG_PURGE_QUEUE } from './catalog-purge';
import { CREDENTIALS_QUEUE } from './credentials';
import { MAINTENANCE_QUEUE } from './maintenance';
import { METERING_QUEUE, METERING_SWEEP_QUEUE } from './metering';
import { OAUTH_PRUNE_QUEUE } from './oauth-prune';
import { ORG_ERASURE_QUEUE } from './org-erasure';
import { PROVISIONING_QUEUE } from './provisioning';
import { QUERY_QUEUE } from './query';
import { REJECTS_AGEING_QUEUE, SINK_ROLL_QUEUE, SINK_TICK_QUEUE } from './sink-roll';
import { STORAGE_POLICY_QUEUE } from './storage-policies';
import { UPLOADER_EXPIRY_QUEUE } from './uploader-expiry';
import { TEARDOWN_QUEUE, TEARDOWN_SWEEP_QUEUE } from './teardown';

export * from './job';
export * from './producers';
export * from './runner';
export * from './catalog-purge';
export * from './credentials';
export * from './maintenance';
export * from './maintenance-rules';
export * from './maintenance-trigger';
export * from './metering';
export * from './oauth-prune';
export * from './org-erasure';
export * from './provisioning';
export * from './query';
export * from './sink-roll';
export * from './storage-policies';
export * from './uploader-expiry';
export * from './teardown';

export const QUEUES = {
  provisioning: PROVISIONING_QUEUE,
  credentials: CREDENTIALS_QUEUE,
  teardown: TEARDOWN_QUEUE,
  teardownSweep: TEARDOWN_SWEEP_QUEUE,
  metering: METERING_QUEUE,
  meteringSweep: METERING_SWEEP_QUEUE,
  sinkRoll: SINK_ROLL_QUEUE,
  sinkTick: SINK_TICK_QUEUE,
  rejectsAgeing: REJECTS_AGEING_QUEUE,
  catalogPurge: CATALOG_PURGE_QUEUE,
  orgErasure: ORG_ERASURE_QUEUE,
  uploaderExpiry: UPLOADER_EXPIRY_QUEUE,
  oauthPrune: OAUTH_PRUNE_QUEUE,
  storagePolicies: STORAGE_POLICY_QUEUE,
  maintenance: MAINTENANCE_QUEUE,
  query: QUERY_QUEUE,
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
