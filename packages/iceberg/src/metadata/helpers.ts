// Read-side helpers. They accept metadata exactly as parsed, including v1 files that
// only carry the legacy `schema` / `partition-spec` fields or no `refs`.

import { randomUUID } from 'node:crypto';
import type {
  PartitionField,
  PartitionSpec,
  Schema,
  Snapshot,
  SnapshotRef,
  SortOrder,
  TableMetadata,
} from './model';

export const MAIN_BRANCH = 'main';

/** The current snapshot id; Java's `-1` and a missing or null value all mean none. */
export function currentSnapshotId(meta: TableMetadata): bigint | null {
  const id = meta['current-snapshot-id'];
  return id === undefined || id === null || id === -1n ? null : id;
}

export function snapshotById(meta: TableMetadata, id: bigint): Snapshot | undefined {
  return (meta.snapshots ?? []).find((s) => s['snapshot-id'] === id);
}

export function currentSnapshot(meta: TableMetadata): Snapshot | undefined {
  const id = currentSnapshotId(meta);
  return id === null ? undefined : snapshotById(meta, id);
}

/** All schemas; a legacy v1 file holds just `schema` (schema id 0 unless it says). */
export function schemasOf(meta: TableMetadata): Schema[] {
  if (meta.schemas) return meta.schemas;
  return meta.schema ? [{ ...meta.schema, 'schema-id': meta.schema['schema-id'] ?? 0 }] : [];
}

export function currentSchemaId(meta: TableMetadata): number {
  return meta['current-schema-id'] ?? meta.schema?.['schema-id'] ?? 0;
}

export function schemaById(meta: TableMetadata, id: number): Schema | undefined {
  return schemasOf(meta).find((s) => s['schema-id'] === id);
}

export function currentSchema(meta: TableMetadata): Schema {
  const id = currentSchemaId(meta);
  const schema = schemaById(meta, id);
  if (!schema) throw new Error(`Table metadata has no schema with current-schema-id ${id}`);
  return schema;
}

/**
 * All partition specs; a legacy v1 `partition-spec` becomes spec 0, with the field ids
 * the Java reference assigned v1 fields (1000, 1001, ...) where they are missing.
 */
export function partitionSpecsOf(meta: TableMetadata): PartitionSpec[] {
  if (meta['partition-specs']) return meta['partition-specs'];
  const fields: PartitionField[] = (meta['partition-spec'] ?? []).map((f, i) => ({
    ...f,
    'field-id': partitionFieldId(f, i),
  }));
  return [{ 'spec-id': 0, fields }];
}

/** A partition field's id, or the one the Java reference assigns a v1 field without one. */
export function partitionFieldId(field: PartitionField, index: number): number {
  return field['field-id'] ?? 1000 + index;
}

export function defaultSpecId(meta: TableMetadata): number {
  return meta['default-spec-id'] ?? 0;
}

export function specById(meta: TableMetadata, id: number): PartitionSpec | undefined {
  return partitionSpecsOf(meta).find((s) => s['spec-id'] === id);
}

export function defaultSpec(meta: TableMetadata): PartitionSpec {
  const spec = specById(meta, defaultSpecId(meta));
  if (!spec) throw new Error(`Table metadata has no partition spec with default-spec-id ${defaultSpecId(meta)}`);
  return spec;
}

/** Highest partition field id ever assigned; 999 when nothing was (Java convention). */
export function lastPartitionId(meta: TableMetadata): number {
  if (meta['last-partition-id'] !== undefined) return meta['last-partition-id'];
  let max = 999;
  for (const spec of partitionSpecsOf(meta)) for (const f of spec.fields) max = Math.max(max, f['field-id'] ?? 0);
  return max;
}

/** All sort orders; tables written before sort orders existed are unsorted (order 0). */
export function sortOrdersOf(meta: TableMetadata): SortOrder[] {
  return meta['sort-orders'] ?? [{ 'order-id': 0, fields: [] }];
}

export function defaultSortOrderId(meta: TableMetadata): number {
  return meta['default-sort-order-id'] ?? 0;
}

export function sortOrderById(meta: TableMetadata, id: number): SortOrder | undefined {
  return sortOrdersOf(meta).find((o) => o['order-id'] === id);
}

/** Refs, with the implied `main` branch of files that carry only current-snapshot-id. */
export function refsOf(meta: TableMetadata): Record<string, SnapshotRef> {
  if (meta.refs) return meta.refs;
  const current = currentSnapshotId(meta);
  return current === null ? {} : { [MAIN_BRANCH]: { 'snapshot-id': current, type: 'branch' } };
}

export function lastSequenceNumber(meta: TableMetadata): bigint {
  return meta['last-sequence-number'] ?? 0n;
}

/** v1 snapshots have no sequence number; readers take 0 (spec Appendix E). */
export function snapshotSequenceNumber(snapshot: Snapshot): bigint {
  return snapshot['sequence-number'] ?? 0n;
}

// ---------------------------------------------------------------- metadata files

/** `<5-digit zero-padded version>-<uuid>.metadata.json`, the Java catalogs' file name. */
export function metadataFileName(version: number, uuid: string): string {
  if (!Number.isInteger(version) || version < 0) throw new RangeError(`Invalid metadata version ${version}`);
  return `${String(version).padStart(5, '0')}-${uuid}.metadata.json`;
}

// 00012-<uuid>.metadata.json, 00012-<uuid>.gz.metadata.json, legacy v12.metadata.json (+ .gz)
const VERSIONED = /^(\d+)-[^/]*\.metadata\.json(?:\.gz)?$/;
const LEGACY = /^v(\d+)(?:\.gz)?\.metadata\.json(?:\.gz)?$/;

/** The version number of a metadata file location, or -1 when it does not carry one. */
export function parseMetadataVersion(location: string): number {
  const name = location.slice(location.lastIndexOf('/') + 1);
  const m = VERSIONED.exec(name) ?? LEGACY.exec(name);
  return m ? Number(m[1]) : -1;
}

/**
 * The version for the next metadata file after `location` (the current metadata file).
 * A new table (no location) and an unparseable name both give 0, as in Java.
 */
export function nextMetadataVersion(location: string | null | undefined): number {
  return location ? parseMetadataVersion(location) + 1 : 0;
}

/** Where a metadata file goes: `write.metadata.path` if set, else `<location>/metadata`. */
export function metadataFileLocation(meta: TableMetadata, fileName: string): string {
  const dir = meta.properties?.['write.metadata.path']?.replace(/\/+$/, '') ?? `${meta.location.replace(/\/+$/, '')}/metadata`;
  return `${dir}/${fileName}`;
}

/**
 * A fresh positive snapshot id from a random UUID (as Java makes them), kept
 * under 2^53: the spec allows any long, but JavaScript engines (iceberg-js,
 * icebird) read ids as JSON numbers, and an id they round can never match an
 * `assert-ref-snapshot-id` again — so the ids Floe's own writers mint (a
 * sink's roll, a maintenance run) stay exact in every reader. 53 random bits
 * make a collision within one table's retained snapshots negligible.
 */
export function newSnapshotId(): bigint {
  const hex = randomUUID().replace(/-/g, '');
  const id = (BigInt(`0x${hex.slice(0, 16)}`) ^ BigInt(`0x${hex.slice(16)}`)) & 0x1fffffffffffffn;
  return id === 0n ? newSnapshotId() : id;
}
