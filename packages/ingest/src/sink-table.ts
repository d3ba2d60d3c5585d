import { METADATA_RETENTION_PROPERTIES, currentSchema, currentSchemaId, schemasOf, type Schema, type TableMetadata, type TableRequirement, type TableUpdate } from '@floe/iceberg';
import { INGEST_TS } from './rows';

// What a sink changes in its table on its first roll, in one home: the
// roller commits these changes and the control plane shows them on every sink
// (`table_changes`). The first roll adds the optional `__ingest_ts` column
// and the metadata-retention properties, in one commit; no partitioning.

/** Metadata retention (packages/iceberg table-defaults.ts): a table that takes an append every few minutes keeps 20 metadata files, not thousands. */
export const SINK_TABLE_PROPERTIES = METADATA_RETENTION_PROPERTIES;

/** The first-roll changes as a sink's record shows them. */
export const SINK_TABLE_CHANGES = {
  add_column: INGEST_TS,
  partition: 'none',
  properties: SINK_TABLE_PROPERTIES,
};

/** A commit's body for the catalog: what must still hold, and what changes. */
export interface TableChanges {
  requirements: TableRequirement[];
  updates: TableUpdate[];
}

/**
 * The first roll's commit on a table, or null once its current schema has
 * `__ingest_ts`. The requirements make it refused (409) if another writer
 * changed the schema meanwhile.
 */
export function firstRollChanges(m: TableMetadata): TableChanges | null {
  const current = currentSchema(m);
  if (current.fields.some((f) => f.name === INGEST_TS)) return null;
  const lastColumn = m['last-column-id'];
  const nextSchemaId = Math.max(...schemasOf(m).map((s) => s['schema-id'] ?? 0)) + 1;
  const schema: Schema = {
    ...current, 'schema-id': nextSchemaId,
    fields: [...current.fields, { id: lastColumn + 1, name: INGEST_TS, required: false, type: 'timestamptz' }],
  };
  return {
    requirements: [
      { type: 'assert-current-schema-id', 'current-schema-id': currentSchemaId(m) },
      { type: 'assert-last-assigned-field-id', 'last-assigned-field-id': lastColumn },
    ],
    updates: [
      { action: 'add-schema', schema, 'last-column-id': lastColumn + 1 },
      { action: 'set-current-schema', 'schema-id': -1 },
      { action: 'set-properties', updates: { ...SINK_TABLE_PROPERTIES } },
    ],
  };
}
