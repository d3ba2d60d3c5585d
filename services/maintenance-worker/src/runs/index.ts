import type { MaintenanceKind } from '@floe/queues';
import { cleanMetadata } from './clean-metadata';
import { expireSnapshots } from './expire-snapshots';
import type { KindRunner } from './kind';
import { removeOrphans } from './remove-orphans';

/** The kinds built so far (packages/queues BUILT_MAINTENANCE_KINDS); compaction and manifest rewrites come next. */
export const RUNNERS: Partial<Record<MaintenanceKind, KindRunner>> = {
  expire_snapshots: expireSnapshots as KindRunner,
  clean_metadata: cleanMetadata as KindRunner,
  remove_orphans: removeOrphans as KindRunner,
};
