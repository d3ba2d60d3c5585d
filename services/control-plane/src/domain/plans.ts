import { STORAGE_LIMIT_BYTES } from '@floe/db/usage';

// The limits every organisation (or organisation-less owner) has today: the
// free plan's numbers. Operator overrides come with the operator routes.
export const FREE_PLAN = {
  projects: 20,
  warehouses_per_project: 10,
  storage_bytes: STORAGE_LIMIT_BYTES,
  /** Sinks with a device token (the free plan's guide statement). */
  device_sinks: 10,
} as const;

export const MAINTENANCE_DEFAULTS = {
  compaction: true,
  target_file_size_mb: 128,
  snapshot_retention_days: 7,
  max_snapshots: 20,
  disableable: false,
} as const;

/** The format versions a catalog's own create paths may default to, as `invalid_value` names them. */
export const FORMAT_VERSIONS = {
  '2': 'the default: read and written by every Iceberg engine',
  '3': 'row lineage, deletion vectors, geometry/geography and nanosecond timestamps; fewer engines write it',
} as const;
