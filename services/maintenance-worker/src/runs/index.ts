import type { MaintenanceKind } from '@floe/queues';
import { cleanMetadata } from './clean-metadata';
import { compact } from './compact';
import { expireSnapshots } from './expire-snapshots';
import type { KindRunner } from './kind';
import { removeOrphans } from './remove-orphans';
import { rewriteManifests } from './rewrite-manifests';

/** Every kind's runner (packages/queues MAINTENANCE_KINDS, in the order a run does them). */
export const RUNNERS: Record<MaintenanceKind, KindRunner> = {
  expire_snapshots: expireSnapshots as KindRunner,
  compact: compact as KindRunner,
  rewrite_manifests: rewriteManifests as KindRunner,
  clean_metadata: cleanMetadata as KindRunner,
  remove_orphans: removeOrphans as KindRunner,
};
