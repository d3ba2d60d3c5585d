// Metadata for a new table from a REST CreateTableRequest. The catalog owns column ids:
// whatever ids the client sent are replaced with fresh ones (1, 2, ... in Java's order),
// and the partition spec and sort order are re-pointed at them by the old ids.

import { randomUUID } from 'node:crypto';
import { invalid } from './errors';
import type { FormatVersion, PartitionSpec, Schema, SortOrder, TableMetadata, TableUpdate } from './model';
import { assignFreshIds, schemaNodes } from './schema';
import { RESERVED_PROPERTIES, applyUpdates } from './updates';

export interface NewTableOptions {
  /** Table base location (trailing slashes are dropped). */
  location: string;
  schema: Schema;
  partitionSpec?: PartitionSpec;
  /** The request's `write-order`. */
  sortOrder?: SortOrder;
  properties?: Record<string, string>;
  /** Default: the `format-version` property if given, else 2. */
  formatVersion?: FormatVersion;
  tableUuid?: string;
  /** Creation time for last-updated-ms; default now. */
  nowMs?: number;
}

/** Builds v1/v2/v3 metadata for a table being created. Throws InvalidUpdateError (400). */
export function newTableMetadata(options: NewTableOptions): TableMetadata {
  const properties = options.properties ?? {};
  const formatVersion = options.formatVersion ?? versionFromProperties(properties);

  // Java refuses duplicate ids when it builds the request's schema; without unique ids
  // the spec's and sort order's source ids would be ambiguous.
  const seen = new Set<number>();
  for (const node of schemaNodes(options.schema)) {
    if (seen.has(node.id)) invalid(`Invalid schema: duplicate field id ${node.id} (${node.name})`);
    seen.add(node.id);
  }

  let lastColumnId = 0;
  const { schema, idMap } = assignFreshIds(options.schema, () => ++lastColumnId, 0);
  const newSourceId = (old: number) =>
    idMap.get(old) ?? invalid(`Cannot find source column ${old} in the table schema`);

  // Partition field ids are re-assigned too, from 1000 as for every new table.
  const spec: PartitionSpec = {
    'spec-id': 0,
    fields: (options.partitionSpec?.fields ?? []).map((f, i) => {
      const { 'source-id': sourceId, 'source-ids': sourceIds, 'field-id': _id, ...rest } = f;
      return {
        ...(sourceId !== undefined ? { 'source-id': newSourceId(sourceId) } : {}),
        ...(sourceIds !== undefined ? { 'source-ids': sourceIds.map(newSourceId) } : {}),
        'field-id': 1000 + i,
        ...rest,
      };
    }),
  };

  const sortFields = (options.sortOrder?.fields ?? []).map((f) => {
    const { 'source-id': sourceId, 'source-ids': sourceIds, ...rest } = f;
    return {
      ...rest,
      ...(sourceId !== undefined ? { 'source-id': newSourceId(sourceId) } : {}),
      ...(sourceIds !== undefined ? { 'source-ids': sourceIds.map(newSourceId) } : {}),
    };
  });
  const order: SortOrder = { 'order-id': sortFields.length === 0 ? 0 : 1, fields: sortFields };

  const stored = Object.fromEntries(Object.entries(properties).filter(([k]) => !RESERVED_PROPERTIES.has(k)));

  // The same path as a REST create transaction, so both share every check.
  const updates: TableUpdate[] = [
    { action: 'assign-uuid', uuid: options.tableUuid ?? randomUUID() },
    { action: 'upgrade-format-version', 'format-version': formatVersion },
    { action: 'add-schema', schema, 'last-column-id': lastColumnId },
    { action: 'set-current-schema', 'schema-id': -1 },
    { action: 'add-spec', spec },
    { action: 'set-default-spec', 'spec-id': -1 },
    { action: 'add-sort-order', 'sort-order': order },
    { action: 'set-default-sort-order', 'sort-order-id': -1 },
    { action: 'set-location', location: options.location },
    { action: 'set-properties', updates: stored },
  ];
  return applyUpdates(null, updates, { nowMs: options.nowMs ?? Date.now() });
}

function versionFromProperties(properties: Record<string, string>): FormatVersion {
  const raw = properties['format-version'];
  if (raw === undefined) return 2;
  const v = Number(raw);
  if (v === 1 || v === 2 || v === 3) return v;
  return invalid(`Unsupported format-version property: ${raw} (supported: 1, 2, 3)`);
}
