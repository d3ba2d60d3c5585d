import { METADATA_RETENTION_PROPERTIES, currentSnapshot, formatMegabytes, positiveLong, type TableMetadata } from '@floe/iceberg';
import { MAINTENANCE_DEFAULTS, type MaintenanceKind } from './maintenance';

// When a table needs a run without anyone asking: the rules the maintenance
// worker's hourly sweep (and a writer such as the roller) apply to a table's
// metadata, and that GET /v1/table/maintenance states. Each rule crossed
// names the kind and its inputs in words, which the run records as its
// trigger. Pure: the callers read the metadata.

export const DAY_MS = 86_400_000;

/** The properties every table gets (packages/iceberg table-defaults.ts): old metadata files go at each commit, 20 stay logged. */
export const METADATA_PROPERTIES = METADATA_RETENTION_PROPERTIES;

/**
 * A few snapshots over the cap before a writer's commit queues an expiry, so
 * a table rolled every minute is not maintained every minute. The hourly
 * sweep has none: a table at rest keeps at most the cap.
 */
export const SNAPSHOT_SLACK = 5;

/**
 * Data files at the head, on average small, before a writer queues a
 * compaction: enough that a sink rolling every minute is compacted about
 * every quarter hour — its commits carry few manifests — without rewriting
 * its newest files at every roll.
 */
export const COMPACT_TRIGGER_FILES = 16;

const MIB = 1024 * 1024;

function positiveProperty(m: TableMetadata, name: string): number | null {
  const v = positiveLong(m.properties?.[name]);
  return v === undefined ? null : Number(v);
}

/** A table's target data file size: `write.target-file-size-bytes`, else the catalog's promise (128 MB). */
export const targetFileBytes = (m: TableMetadata) => positiveProperty(m, 'write.target-file-size-bytes') ?? MAINTENANCE_DEFAULTS.target_file_size_mb * MIB;
/** Files under this share of the target are small (Iceberg's rewrite-data-files default). */
export const SMALL_FILE_RATIO = 0.75;
/** `commit.manifest.target-size-bytes` (Iceberg's default 8 MB): merged manifests are kept near or under it. */
export const manifestTargetBytes = (m: TableMetadata) => positiveProperty(m, 'commit.manifest.target-size-bytes') ?? 8 * MIB;
/**
 * Small data manifests of a spec before they are merged:
 * `commit.manifest.min-count-to-merge`, else Floe's 16 — Iceberg's default
 * (100) would let a sink table's commits carry a hundred manifests between
 * merges; Floe keeps them few.
 */
export const MANIFEST_MIN_COUNT_TO_MERGE = 16;
export const minCountToMerge = (m: TableMetadata) => positiveProperty(m, 'commit.manifest.min-count-to-merge') ?? MANIFEST_MIN_COUNT_TO_MERGE;

export interface RuleHit {
  kind: MaintenanceKind;
  detail: string;
}

export interface RuleInputs {
  nowMs: number;
  lastOrphanPassMs: number | null;
  orphanPassEveryMs: number;
  /**
   * When compaction and the manifest rewrite last looked at the table (the
   * sweep knows; a writer does not and leaves it out): a head committed
   * since then is looked at again, so tables of big files get their
   * manifests merged too. Given, the snapshot cap is judged without the
   * writer's slack (SNAPSHOT_SLACK).
   */
  lastLayoutPassMs?: number | null;
}

export function rulesCrossed(m: TableMetadata, o: RuleInputs): RuleHit[] {
  const hits: RuleHit[] = [];
  hits.push(...layoutRules(m, o));
  const snapshots = m.snapshots ?? [];
  const cap = MAINTENANCE_DEFAULTS.max_snapshots;
  const maxAge = MAINTENANCE_DEFAULTS.snapshot_retention_days * DAY_MS;
  const oldest = snapshots.reduce((min, s) => Math.min(min, Number(s['timestamp-ms'])), Infinity);
  const slack = o.lastLayoutPassMs === undefined ? SNAPSHOT_SLACK : 0;
  if (snapshots.length > cap + slack) {
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

/** Compaction and the manifest rewrite: their runs read the manifests and judge each partition; the metadata can only say when to look. */
function layoutRules(m: TableMetadata, o: RuleInputs): RuleHit[] {
  const head = currentSnapshot(m);
  if (!head) return [];
  const summary = head.summary ?? {};
  const files = Number(summary['total-data-files']);
  const bytes = Number(summary['total-files-size']);
  const small = SMALL_FILE_RATIO * targetFileBytes(m);
  if (Number.isInteger(files) && files >= COMPACT_TRIGGER_FILES && Number.isFinite(bytes) && bytes / files < small) {
    const detail = `${files} data files averaging ${formatMegabytes(bytes / files)}, under ${formatMegabytes(small)}`;
    return [{ kind: 'compact', detail }, { kind: 'rewrite_manifests', detail }];
  }
  if (o.lastLayoutPassMs !== undefined && (o.lastLayoutPassMs === null || Number(head['timestamp-ms']) > o.lastLayoutPassMs)) {
    const detail = o.lastLayoutPassMs === null ? 'no compaction pass yet' : 'commits since the last compaction pass';
    return [{ kind: 'compact', detail }, { kind: 'rewrite_manifests', detail }];
  }
  return [];
}

/** The rules in words, as GET /v1/table/maintenance states them. */
export const MAINTENANCE_RULES = [
  `compact and rewrite_manifests: at a commit, ${COMPACT_TRIGGER_FILES} or more data files averaging under ${SMALL_FILE_RATIO * 100}% of the target file size (write.target-file-size-bytes, else ${MAINTENANCE_DEFAULTS.target_file_size_mb} MB); at the hourly sweep, any commit since the last pass. A run compacts each partition holding 5 files under ${SMALL_FILE_RATIO * 100}% of the target into files near it, and merges data manifests under commit.manifest.target-size-bytes (8 MB) once ${MANIFEST_MIN_COUNT_TO_MERGE} (commit.manifest.min-count-to-merge) are small`,
  `expire_snapshots: at a commit, more than ${MAINTENANCE_DEFAULTS.max_snapshots + SNAPSHOT_SLACK} snapshots; at the hourly sweep, more than ${MAINTENANCE_DEFAULTS.max_snapshots}; or one older than ${MAINTENANCE_DEFAULTS.snapshot_retention_days + 1} days; keeps the newest ${MAINTENANCE_DEFAULTS.max_snapshots} within ${MAINTENANCE_DEFAULTS.snapshot_retention_days} days of each branch, every tag and the table's own history.expire.* settings`,
  `clean_metadata: a table without ${Object.keys(METADATA_PROPERTIES).join(' or ')}; metadata files no metadata names, an hour old`,
  'remove_orphans: once a day; files under the table\'s location no metadata names, older than the orphan age (3 days)',
] as const;
