// Manifest files (spec "Manifests"): Avro files of manifest_entry records, one
// partition spec and one content kind (data or deletes) per file.
import { byId, fieldValue, readAvroContainer, writeAvroContainer, type AvroCodec } from './avro.js';
import type { FieldSummary, ManifestFile } from './manifest-list.js';
import { partitionAvroSchema, partitionFromAvro, partitionToAvro, type PartitionData } from './partition.js';
import { partitionFieldId } from '../metadata/helpers.js';
import { parseJson, stringifyJson } from '../metadata/json.js';
import type { FormatVersion, PartitionSpec, Schema } from '../metadata/model.js';
import { partitionSpecId, partitionType } from './types.js';
import { compareValues, toBinary, toInternal, type IcebergValue } from './values.js';

export const EntryStatus = { EXISTING: 0, ADDED: 1, DELETED: 2 } as const;
export type EntryStatus = (typeof EntryStatus)[keyof typeof EntryStatus];

export const FileContent = { DATA: 0, POSITION_DELETES: 1, EQUALITY_DELETES: 2 } as const;
export type FileContent = (typeof FileContent)[keyof typeof FileContent];

/** data_file (field 2). Longs are bigint, ints are number; absent optional fields are null/undefined. */
export interface DataFile {
  content: FileContent;
  file_path: string;
  file_format: string;
  partition: PartitionData;
  record_count: bigint;
  file_size_in_bytes: bigint;
  column_sizes?: Map<number, bigint> | null;
  value_counts?: Map<number, bigint> | null;
  null_value_counts?: Map<number, bigint> | null;
  nan_value_counts?: Map<number, bigint> | null;
  lower_bounds?: Map<number, Uint8Array> | null;
  upper_bounds?: Map<number, Uint8Array> | null;
  key_metadata?: Uint8Array | null;
  split_offsets?: bigint[] | null;
  equality_ids?: number[] | null;
  sort_order_id?: number | null;
  /** v3 row lineage; written null for new files (inherited from the manifest on read). */
  first_row_id?: bigint | null;
  referenced_data_file?: string | null;
  content_offset?: bigint | null;
  content_size_in_bytes?: bigint | null;
}

export interface ManifestEntry {
  status: EntryStatus;
  /** null = inherit the manifest's added_snapshot_id. */
  snapshot_id: bigint | null;
  /** Data sequence number; null = inherit (ADDED entries only). */
  sequence_number: bigint | null;
  file_sequence_number: bigint | null;
  data_file: DataFile;
}

export type ManifestContentName = 'data' | 'deletes';

export interface WriteManifestOptions {
  formatVersion: FormatVersion;
  /** Table schema when the manifest is written (stored in the `schema` key, and types the partition tuple). */
  schema: Schema;
  spec: PartitionSpec;
  content?: ManifestContentName;
  /** Snapshot adding this manifest: written into ADDED entries that carry no snapshot id. */
  snapshotId: bigint;
  /** Where the bytes will be stored; copied into the returned manifest_file. */
  path: string;
  entries: ManifestEntry[];
  codec?: AvroCodec;
}

export interface WrittenManifest {
  bytes: Uint8Array;
  /** The manifest list entry for these bytes; sequence numbers left null (assigned when the list is written). */
  manifestFile: ManifestFile;
}

// v1 writers must still write block_size_in_bytes; the reference implementation writes 64 MiB.
const V1_BLOCK_SIZE = 64n * 1024n * 1024n;

const opt = (type: unknown) => ['null', type];
const field = (name: string, id: number, type: unknown, optional = false) =>
  optional ? { name, type: opt(type), default: null, 'field-id': id } : { name, type, 'field-id': id };
const mapOf = (keyId: number, valueId: number, value: string) => ({
  type: 'array',
  logicalType: 'map', // non-string keys: array of key/value records (Appendix A)
  items: {
    type: 'record',
    name: `k${keyId}_v${valueId}`,
    fields: [field('key', keyId, 'int'), field('value', valueId, value)],
  },
});
const listOf = (elementId: number, element: string) => ({ type: 'array', items: element, 'element-id': elementId });

/** The manifest_entry Avro schema for a format version, with every field id from the spec. */
export function manifestEntryAvroSchema(formatVersion: FormatVersion, spec: PartitionSpec, schema: Schema): object {
  const v1 = formatVersion === 1;
  const dataFile: unknown[] = [
    ...(v1 ? [] : [field('content', 134, 'int')]),
    field('file_path', 100, 'string'),
    field('file_format', 101, 'string'),
    field('partition', 102, partitionAvroSchema(spec, schema)),
    field('record_count', 103, 'long'),
    field('file_size_in_bytes', 104, 'long'),
    ...(v1 ? [field('block_size_in_bytes', 105, 'long')] : []),
    field('column_sizes', 108, mapOf(117, 118, 'long'), true),
    field('value_counts', 109, mapOf(119, 120, 'long'), true),
    field('null_value_counts', 110, mapOf(121, 122, 'long'), true),
    field('nan_value_counts', 137, mapOf(138, 139, 'long'), true),
    field('lower_bounds', 125, mapOf(126, 127, 'bytes'), true),
    field('upper_bounds', 128, mapOf(129, 130, 'bytes'), true),
    field('key_metadata', 131, 'bytes', true),
    field('split_offsets', 132, listOf(133, 'long'), true),
    ...(v1 ? [] : [field('equality_ids', 135, listOf(136, 'int'), true)]),
    field('sort_order_id', 140, 'int', true),
    ...(formatVersion >= 3 ? [field('first_row_id', 142, 'long', true)] : []),
    ...(v1 ? [] : [field('referenced_data_file', 143, 'string', true)]),
    ...(formatVersion >= 3 ? [field('content_offset', 144, 'long', true), field('content_size_in_bytes', 145, 'long', true)] : []),
  ];
  return {
    type: 'record',
    name: 'manifest_entry',
    fields: [
      field('status', 0, 'int'),
      v1 ? field('snapshot_id', 1, 'long') : field('snapshot_id', 1, 'long', true),
      ...(v1 ? [] : [field('sequence_number', 3, 'long', true), field('file_sequence_number', 4, 'long', true)]),
      field('data_file', 2, { type: 'record', name: 'r2', fields: dataFile }),
    ],
  };
}

export function writeManifest(opts: WriteManifestOptions): WrittenManifest {
  const { formatVersion, schema, spec, snapshotId, entries } = opts;
  const content = opts.content ?? 'data';
  if (formatVersion === 1 && content !== 'data') throw new Error('v1 manifests cannot hold delete files');
  const avroSchema = manifestEntryAvroSchema(formatVersion, spec, schema);
  const records = entries.map((e) => entryToAvro(e, opts));
  const metadata: Record<string, string> = {
    // Lossless: field defaults from parsed metadata may be bigints.
    schema: stringifyJson(schema),
    // Ids spelled out, so a reader matches them to the partition tuple without knowing v1's defaults.
    'partition-spec': stringifyJson(spec.fields.map((f, i) => ({ ...f, 'field-id': partitionFieldId(f, i) }))),
    'partition-spec-id': String(partitionSpecId(spec)),
    'format-version': String(formatVersion),
  };
  if (schema['schema-id'] !== undefined) metadata['schema-id'] = String(schema['schema-id']);
  if (formatVersion >= 2) metadata.content = content;
  const bytes = writeAvroContainer({ schema: avroSchema, records, metadata, codec: opts.codec });
  return { bytes, manifestFile: summarize(opts, bytes.length, content) };
}

function entryToAvro(e: ManifestEntry, opts: WriteManifestOptions): Record<string, unknown> {
  const { formatVersion: v, spec, schema, snapshotId } = opts;
  const f = e.data_file;
  if (v >= 2 && e.status !== EntryStatus.ADDED && (e.sequence_number == null || e.file_sequence_number == null)) {
    // spec: existing and deleted entries must carry both sequence numbers explicitly
    throw new Error(`entry for ${f.file_path}: status ${e.status} requires explicit sequence numbers`);
  }
  if (v === 1 && (f.content ?? 0) !== FileContent.DATA) throw new Error('v1 manifests hold data files only');
  const long = (x: bigint | number | null | undefined) => (x === null || x === undefined ? null : BigInt(x));
  const record: Record<string, unknown> = {
    status: e.status,
    snapshot_id: long(e.snapshot_id) ?? (e.status === EntryStatus.ADDED || v === 1 ? snapshotId : null),
    sequence_number: long(e.sequence_number),
    file_sequence_number: long(e.file_sequence_number),
    data_file: {
      content: f.content ?? 0,
      file_path: f.file_path,
      file_format: f.file_format,
      partition: partitionToAvro(spec, schema, f.partition),
      record_count: BigInt(f.record_count),
      file_size_in_bytes: BigInt(f.file_size_in_bytes),
      block_size_in_bytes: V1_BLOCK_SIZE,
      column_sizes: mapToAvro(f.column_sizes, (x) => BigInt(x)),
      value_counts: mapToAvro(f.value_counts, (x) => BigInt(x)),
      null_value_counts: mapToAvro(f.null_value_counts, (x) => BigInt(x)),
      nan_value_counts: mapToAvro(f.nan_value_counts, (x) => BigInt(x)),
      lower_bounds: mapToAvro(f.lower_bounds, toBuffer),
      upper_bounds: mapToAvro(f.upper_bounds, toBuffer),
      key_metadata: f.key_metadata ? toBuffer(f.key_metadata) : null,
      split_offsets: f.split_offsets ? f.split_offsets.map((x) => BigInt(x)) : null,
      equality_ids: f.equality_ids ?? null,
      sort_order_id: f.sort_order_id ?? null,
      first_row_id: long(f.first_row_id),
      referenced_data_file: f.referenced_data_file ?? null,
      content_offset: long(f.content_offset),
      content_size_in_bytes: long(f.content_size_in_bytes),
    },
  };
  return record;
}

function mapToAvro<T, U>(m: Map<number, T> | null | undefined, conv: (v: T) => U) {
  if (!m) return null;
  return [...m].sort(([a], [b]) => a - b).map(([key, value]) => ({ key, value: conv(value) }));
}

function toBuffer(b: Uint8Array): Buffer {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** Counts, partition summaries and min sequence number for the manifest list (like the reference ManifestWriter). */
function summarize(opts: WriteManifestOptions, length: number, content: ManifestContentName): ManifestFile {
  const counts = { added: [0, 0n], existing: [0, 0n], deleted: [0, 0n] } as Record<string, [number, bigint]>;
  let minSeq: bigint | null = null;
  for (const e of opts.entries) {
    const key = e.status === EntryStatus.ADDED ? 'added' : e.status === EntryStatus.EXISTING ? 'existing' : 'deleted';
    counts[key][0] += 1;
    counts[key][1] += BigInt(e.data_file.record_count);
    if (e.status !== EntryStatus.DELETED && e.sequence_number != null) {
      const s = BigInt(e.sequence_number);
      if (minSeq === null || s < minSeq) minSeq = s;
    }
  }
  return {
    manifest_path: opts.path,
    manifest_length: BigInt(length),
    partition_spec_id: partitionSpecId(opts.spec),
    content: content === 'data' ? 0 : 1,
    sequence_number: null,
    min_sequence_number: minSeq,
    added_snapshot_id: opts.snapshotId,
    added_files_count: counts.added[0],
    existing_files_count: counts.existing[0],
    deleted_files_count: counts.deleted[0],
    added_rows_count: counts.added[1],
    existing_rows_count: counts.existing[1],
    deleted_rows_count: counts.deleted[1],
    partitions: partitionSummaries(opts),
    key_metadata: null,
    first_row_id: null,
  };
}

function partitionSummaries(opts: WriteManifestOptions): FieldSummary[] {
  const struct = partitionType(opts.spec, opts.schema);
  return struct.fields.map((f) => {
    const type = f.type as string;
    let containsNull = false;
    let containsNan = false;
    let lower: IcebergValue | undefined;
    let upper: IcebergValue | undefined;
    for (const e of opts.entries) {
      const v = toInternal(type, e.data_file.partition?.[f.name]);
      if (v === null) containsNull = true;
      else if (typeof v === 'number' && Number.isNaN(v)) containsNan = true;
      else {
        if (lower === undefined || compareValues(v, lower) < 0) lower = v;
        if (upper === undefined || compareValues(v, upper) > 0) upper = v;
      }
    }
    return {
      contains_null: containsNull,
      contains_nan: containsNan,
      lower_bound: lower === undefined ? null : toBinary(type, lower),
      upper_bound: upper === undefined ? null : toBinary(type, upper),
    };
  });
}

export interface ManifestMetadata {
  formatVersion: FormatVersion;
  content: ManifestContentName;
  /** Parsed `schema` key (may be absent in files from other writers). */
  schema?: Schema;
  schemaId?: number;
  spec: PartitionSpec;
}

export interface ReadManifest extends ManifestMetadata {
  entries: ManifestEntry[];
}

/**
 * Reads a manifest. Given its manifest list entry, applies inheritance: null
 * snapshot ids take added_snapshot_id; null sequence numbers of ADDED entries
 * (and of every entry in v1, where the inherited value is 0) take the
 * manifest's sequence_number; null first_row_id of live data files are
 * assigned from the manifest's first_row_id in file order (v3 row lineage).
 */
export function readManifest(bytes: Uint8Array, inherit?: ManifestFile): ReadManifest {
  const file = readAvroContainer(bytes);
  const meta = file.metadata;
  const formatVersion = Number(meta['format-version'] ?? 1) as FormatVersion;
  const specFields = meta['partition-spec'] ? JSON.parse(meta['partition-spec']) : [];
  const spec: PartitionSpec = { 'spec-id': Number(meta['partition-spec-id'] ?? inherit?.partition_spec_id ?? 0), fields: specFields };
  const entryFields = byId(file.schema);
  const dataFileSchema = entryFields.get(2)?.schema;
  const dataFields = byId(dataFileSchema);
  const partitionSchema = dataFields.get(102)?.schema;

  const entries = file.records.map((r: any): ManifestEntry => {
    const get = (id: number) => fieldValue(entryFields, r, id);
    const df = get(2);
    const d = (id: number) => fieldValue(dataFields, df, id);
    return {
      status: Number(get(0)) as EntryStatus,
      snapshot_id: get(1) ?? null,
      sequence_number: get(3) ?? null,
      file_sequence_number: get(4) ?? null,
      data_file: {
        content: (d(134) ?? 0) as FileContent,
        file_path: d(100),
        file_format: String(d(101)).toLowerCase(),
        partition: partitionFromAvro(partitionSchema, d(102) ?? {}, spec),
        record_count: d(103),
        file_size_in_bytes: d(104),
        column_sizes: mapFromAvro(d(108)),
        value_counts: mapFromAvro(d(109)),
        null_value_counts: mapFromAvro(d(110)),
        nan_value_counts: mapFromAvro(d(137)),
        lower_bounds: mapFromAvro(d(125), bytesOf),
        upper_bounds: mapFromAvro(d(128), bytesOf),
        key_metadata: d(131) ? bytesOf(d(131)) : null,
        split_offsets: d(132) ?? null,
        equality_ids: d(135) ?? null,
        sort_order_id: d(140) ?? null,
        first_row_id: d(142) ?? null,
        referenced_data_file: d(143) ?? null,
        content_offset: d(144) ?? null,
        content_size_in_bytes: d(145) ?? null,
      },
    };
  });
  if (inherit) applyInheritance(entries, inherit);

  let schema: Schema | undefined;
  try {
    schema = meta.schema ? (parseJson(meta.schema) as unknown as Schema) : undefined;
  } catch {
    schema = undefined; // informational only; reading does not depend on it
  }
  return {
    formatVersion,
    content: meta.content === 'deletes' ? 'deletes' : 'data',
    schema,
    schemaId: meta['schema-id'] !== undefined ? Number(meta['schema-id']) : undefined,
    spec,
    entries,
  };
}

function applyInheritance(entries: ManifestEntry[], m: ManifestFile): void {
  const seq = m.sequence_number ?? 0n;
  let nextRowId = m.content === 0 ? m.first_row_id : null;
  for (const e of entries) {
    if (e.snapshot_id === null) e.snapshot_id = m.added_snapshot_id;
    // v1 lists carry sequence number 0, which every entry inherits
    const inherits = e.status === EntryStatus.ADDED || seq === 0n;
    if (e.sequence_number === null && inherits) e.sequence_number = seq;
    if (e.file_sequence_number === null && inherits) e.file_sequence_number = seq;
    if (nextRowId != null && e.status !== EntryStatus.DELETED && e.data_file.first_row_id == null) {
      e.data_file.first_row_id = nextRowId;
      nextRowId += e.data_file.record_count;
    }
  }
}

function mapFromAvro<T = bigint>(v: unknown, conv: (x: any) => T = (x) => x): Map<number, T> | null {
  if (v === null || v === undefined) return null;
  const out = new Map<number, T>();
  if (Array.isArray(v)) for (const kv of v) out.set(Number(kv.key), conv(kv.value));
  else for (const [k, x] of Object.entries(v as object)) out.set(Number(k), conv(x)); // Avro map (string keys)
  return out;
}

function bytesOf(b: Uint8Array): Uint8Array {
  return new Uint8Array(b);
}
