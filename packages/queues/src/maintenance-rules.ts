import { METADATA_RETENTION_PROPERTIES, type TableMetadata } from '@floe/iceberg';
import { MAINTENANCE_DEFAULTS, type MaintenanceKind } from './maintenance';

// When a table needs a run without anyone asking: the rules the maintenance
// worker's hourly sweep (and a writer such as the roller) apply to a table's
// metadata, and that GET /v1/table/maintenance states. Each rule crossed
// names the kind and its inputs in words, which the run records as its
// trigger. Pure: the callers read the metadata.

export const DAY_MS = 86_400_000;

/** The properties every table gets (packages/iceberg table-defaults.ts): old metadata files go at each commit, 20 stay logged. */
export const METADATA_PROPERTIES = METADATA_RETENTION_PROPERTIES;

/** A few snapshots over the cap before a run is queued, so a table rolled every minute is not maintained every minute. */
export const SNAPSHOT_SLACK = 5;

export interface RuleHit {
  kind: MaintenanceKind;
  detail: string;
}

export function rulesCrossed(m: TableMetadata, o: { nowMs: number; lastOrphanPassMs: number | null; orphanPassEveryMs: number }): RuleHit[] {
  const hits: RuleHit[] = [];
  const snapshots = m.snapshots ?? [];
  const cap = MAINTENANCE_DEFAULTS.max_snapshots;
  const maxAge = MAINTENANCE_DEFAULTS.snapshot_retention_days * DAY_MS;
  const oldest = snapshots.reduce((min, s) => Math.min(min, Number(s['timestamp-ms'])), Infinity);
  if (snapshots.length > cap + SNAPSHOT_SLACK) {
    hits.push({ kind: 'expire_snapshots', detail: `${snapshots.length} snapshots, more than ${cap} kept` });
  } else if (snapshots.length > 1 && o.nowMs - oldest > maxAge + DAY_MS) {
    hits.push({ kind: 'expire_snapshots', detail: `the oldest of ${snapshots.length} snapshots is ${Math.floor((o.nowMs - oldest) / DAY_MS)} days old, past the ${MAINTENANCE_DEFAULTS.snapshot_retention_days} days kept` });
  }
  const props = m.properties ?? {};
  const missing = Object.entries(METADATA_PROPERTIES).filter(([k]) => props[k] === undefined).map(([k]) => k);
  if (missing.length) hits.push({ kind: 'clean_metadata', detail: `the table lacks ${missing.join(' and ')}` });
  if (o.lastOrphanPassMs === null || o.nowMs - o.lastOrphanPassMs >= o.orphanPassEveryMs) {
    hits.push({ kind: 'remove_orphans', detail: o.lastOrphanPassMs === null ? 'no orphan pass yet' : `the last orphan pass was ${Math.floor((o.nowMs - o.lastOrphanPassMs) / 3_600_000)} h ago` });
  }
  return hits;
}

/** The rules in words, as GET /v1/table/maintenance states them. */
export const MAINTENANCE_RULES = [
  `expire_snapshots: more than ${MAINTENANCE_DEFAULTS.max_snapshots + SNAPSHOT_SLACK} snapshots, or one older than ${MAINTENANCE_DEFAULTS.snapshot_retention_days + 1} days; keeps the newest ${MAINTENANCE_DEFAULTS.max_snapshots} within ${MAINTENANCE_DEFAULTS.snapshot_retention_days} days of each branch, every tag and the table's own history.expire.* settings`,
  `clean_metadata: a table without ${Object.keys(METADATA_PROPERTIES).join(' or ')}; metadata files no metadata names, an hour old`,
  'remove_orphans: once a day; files under the table\'s location no metadata names, older than the orphan age (3 days)',
] as const;
