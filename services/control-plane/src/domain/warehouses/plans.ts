// What every new catalog gets, and the format versions its create paths may
// default to. The plans' limits live in packages/db/src/limits.ts (an
// organisation's effective limits are its plan with the operator's overrides).

/** The maintenance every catalog promises (packages/queues is its one home: the maintenance worker keeps it). */
export { MAINTENANCE_DEFAULTS } from '@floe/queues';

/** The format versions a catalog's own create paths may default to, as `invalid_value` names them. */
export const FORMAT_VERSIONS = {
  '2': 'the default: read and written by every Iceberg engine',
  '3': 'row lineage, deletion vectors, geometry/geography and nanosecond timestamps; fewer engines write it',
} as const;
