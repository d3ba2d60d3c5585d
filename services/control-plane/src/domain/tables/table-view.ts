import { countRows, type ReadFile, type Schema, type TableMetadata } from '@floe/iceberg';
import type { LoadTableResult } from '../../catalog-client';

// The Table resource of the spec, from the catalog's LoadTableResult.

/** A schema's columns as the v3 and geometry checks read them: a catalog's Schema, or a create's schema before the catalog judges its types. */
export interface SchemaColumns {
  fields: ReadonlyArray<{ name: string; type: unknown }>;
}

/** 64-bit ids travel as strings when they would not survive a JSON number (the table model holds every long as a bigint). */
export const idView = (v: unknown): string | number | null =>
  v === null || v === undefined || v === -1 || v === -1n ? null : typeof v === 'bigint' ? (isSafeLong(v) ? Number(v) : v.toString()) : (v as number);

const isSafeLong = (v: bigint) => v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER);

export function currentSchema(metadata: TableMetadata): Schema {
  return (metadata.schemas ?? []).find((s) => s['schema-id'] === metadata['current-schema-id']) ?? metadata.schema ?? { type: 'struct', fields: [] };
}

const GEO = /^(geometry|geography)/;

/** Columns whose types only format version 3 has. */
export function v3Columns(schema: SchemaColumns): Array<{ name: string; type: string }> {
  const out: Array<{ name: string; type: string }> = [];
  for (const f of schema.fields) {
    const t = typeof f.type === 'string' ? f.type : null;
    if (t && (GEO.test(t) || t === 'variant' || t === 'unknown' || t.startsWith('timestamp_ns') || t.startsWith('timestamptz_ns'))) out.push({ name: f.name, type: t });
  }
  return out;
}

export function hasGeoColumn(schema: SchemaColumns): boolean {
  return schema.fields.some((f) => typeof f.type === 'string' && GEO.test(f.type));
}

/** How many snapshots the table view lists (newest first); the metadata holds at most the catalog's snapshot promise and more between expiries. */
export const SNAPSHOT_LOG_LIMIT = 50;

/** The summary figures a timeline shows, as numbers (Iceberg writes them as strings). */
const SUMMARY_FIGURES = ['added-records', 'deleted-records', 'added-data-files', 'deleted-data-files', 'added-files-size', 'removed-files-size', 'total-records', 'total-data-files', 'total-files-size'] as const;

function summaryFigures(summary: Record<string, string> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of SUMMARY_FIGURES) {
    const n = Number(summary?.[k]);
    if (summary?.[k] !== undefined && Number.isFinite(n)) out[k.replaceAll('-', '_')] = n;
  }
  return out;
}

/** The newest snapshots first, each with when, what and how much: the table's commit history as a person reads it. */
export function snapshotLog(m: TableMetadata, currentId: unknown) {
  // The metadata lists snapshots in commit order: reversed first, so commits within one millisecond stay newest first.
  return [...(m.snapshots ?? [])].reverse()
    .sort((a, b) => Number(b['timestamp-ms']) - Number(a['timestamp-ms']))
    .slice(0, SNAPSHOT_LOG_LIMIT)
    .map((s) => ({
      snapshot_id: idView(s['snapshot-id']),
      parent_snapshot_id: idView(s['parent-snapshot-id']),
      committed_at: new Date(Number(s['timestamp-ms'])).toISOString(),
      operation: s.summary?.operation ?? 'overwrite',
      current: String(s['snapshot-id']) === String(currentId),
      ...summaryFigures(s.summary),
    }));
}

/** The default sort order's fields; an unsorted table has none. */
function sortOrderView(m: TableMetadata) {
  const order = (m['sort-orders'] ?? []).find((o) => o['order-id'] === m['default-sort-order-id']);
  return { order_id: order?.['order-id'] ?? 0, fields: (order?.fields ?? []).map((f) => ({ ...f })) };
}

export async function tableView(namespace: string, name: string, loaded: LoadTableResult, read: ReadFile) {
  const m = loaded.metadata;
  const schema = currentSchema(m);
  const currentId = m['current-snapshot-id'];
  const current = (m.snapshots ?? []).find((s) => String(s['snapshot-id']) === String(currentId)) ?? null;
  const counted = await countRows(current, read);
  const spec = (m['partition-specs'] ?? []).find((s) => s['spec-id'] === m['default-spec-id']) ?? { 'spec-id': 0, fields: [] };
  return {
    table: `${namespace}.${name}`,
    namespace,
    name,
    table_uuid: m['table-uuid'],
    location: m.location,
    metadata_location: loaded['metadata-location'] ?? null,
    format_version: Number(m['format-version']),
    schema: schema.fields.map((f) => ({ id: f.id, name: f.name, type: f.type, required: Boolean(f.required) })),
    identifier_field_ids: schema['identifier-field-ids'] ?? [],
    partition_spec: { spec_id: spec['spec-id'], fields: spec.fields },
    sort_order: sortOrderView(m),
    snapshots: (m.snapshots ?? []).length,
    snapshot_log: snapshotLog(m, currentId),
    current_snapshot_id: idView(currentId),
    rows: counted.rows,
    rows_source: counted.rows_source,
    rows_is_exact: counted.rows_is_exact,
    data_files: counted.data_files,
    delete_files: counted.delete_files,
    ...(counted.delete_files ? {
      rows_gross: counted.rows_gross ?? null,
      position_delete_rows: counted.position_delete_rows ?? 0,
      equality_delete_rows: counted.equality_delete_rows ?? 0,
      ...(counted.rows_is_exact ? {} : { rows_note: 'Equality deletes exist: rows is an upper bound until the table is compacted.' }),
    } : {}),
    properties: m.properties ?? {},
  };
}
