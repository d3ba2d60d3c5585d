// Two views of the same metadata:
// - normalised: every collection present, v1 legacy fields folded into the modern ones,
//   "no current snapshot" as null. Updates work on this shape.
// - written: the shape the Java reference writes for the format version (v1 keeps the
//   legacy `schema`/`partition-spec` for old readers, v1 omits last-sequence-number,
//   only v3 has next-row-id, v1/v2 say -1 for no current snapshot, v3 says null).

import type {
  EncryptedKey,
  MetadataLogEntry,
  PartitionSpec,
  PartitionStatisticsFile,
  Schema,
  Snapshot,
  SnapshotLogEntry,
  SnapshotRef,
  SortOrder,
  StatisticsFile,
  TableMetadata,
} from './model';
import {
  currentSchemaId,
  currentSnapshotId,
  defaultSortOrderId,
  defaultSpecId,
  lastPartitionId,
  partitionSpecsOf,
  refsOf,
  schemasOf,
  sortOrdersOf,
} from './helpers';

export type NormalizedTableMetadata = TableMetadata & {
  schemas: Schema[];
  'current-schema-id': number;
  'partition-specs': PartitionSpec[];
  'default-spec-id': number;
  'last-partition-id': number;
  'sort-orders': SortOrder[];
  'default-sort-order-id': number;
  properties: Record<string, string>;
  'current-snapshot-id': bigint | null;
  refs: Record<string, SnapshotRef>;
  snapshots: Snapshot[];
  'snapshot-log': SnapshotLogEntry[];
  'metadata-log': MetadataLogEntry[];
  statistics: StatisticsFile[];
  'partition-statistics': PartitionStatisticsFile[];
  'encryption-keys': EncryptedKey[];
  'last-sequence-number': bigint;
  'next-row-id': bigint;
};

/** Fills every derivable field; never mutates its input. */
export function normalizeTableMetadata(meta: TableMetadata): NormalizedTableMetadata {
  const { schema: _schema, 'partition-spec': _spec, ...rest } = meta;
  return {
    ...rest,
    schemas: schemasOf(meta),
    'current-schema-id': currentSchemaId(meta),
    'partition-specs': partitionSpecsOf(meta),
    'default-spec-id': defaultSpecId(meta),
    'last-partition-id': lastPartitionId(meta),
    'sort-orders': sortOrdersOf(meta),
    'default-sort-order-id': defaultSortOrderId(meta),
    properties: meta.properties ?? {},
    'current-snapshot-id': currentSnapshotId(meta),
    refs: refsOf(meta),
    snapshots: meta.snapshots ?? [],
    'snapshot-log': meta['snapshot-log'] ?? [],
    'metadata-log': meta['metadata-log'] ?? [],
    statistics: meta.statistics ?? [],
    'partition-statistics': meta['partition-statistics'] ?? [],
    'encryption-keys': meta['encryption-keys'] ?? [],
    'last-sequence-number': meta['last-sequence-number'] ?? 0n,
    'next-row-id': meta['next-row-id'] ?? 0n,
  };
}

/** The shape the Java reference writes for this format version. */
export function toWrittenShape(meta: NormalizedTableMetadata): TableMetadata {
  const v = meta['format-version'];
  const { 'encryption-keys': keys, ...out }: TableMetadata = { ...meta };
  if (keys && keys.length > 0) out['encryption-keys'] = keys;
  if (v === 1) {
    const schema = meta.schemas.find((s) => s['schema-id'] === meta['current-schema-id']);
    const spec = meta['partition-specs'].find((s) => s['spec-id'] === meta['default-spec-id']);
    if (schema) out.schema = schema;
    if (spec) out['partition-spec'] = spec.fields;
    delete out['last-sequence-number'];
  }
  if (v < 3) delete out['next-row-id'];
  // No current snapshot: -1 before v3 (as Java writes it); from v3 the key is left out, since
  // the REST document types it as an integer and readers treat absence as "none".
  if (meta['current-snapshot-id'] === null) {
    if (v < 3) out['current-snapshot-id'] = -1n;
    else delete out['current-snapshot-id'];
  }
  return out;
}
