// Manifest lists (spec "Manifest Lists"): one Avro file per snapshot naming its manifests.
import { byId, fieldValue, readAvroContainer, writeAvroContainer, type AvroCodec } from './avro.js';
import type { FormatVersion } from '../metadata/model.js';

export const ManifestContent = { DATA: 0, DELETES: 1 } as const;
export type ManifestContent = (typeof ManifestContent)[keyof typeof ManifestContent];

export interface FieldSummary {
  contains_null: boolean;
  contains_nan: boolean | null;
  /** Appendix D binary serialization, typed by the partition field. */
  lower_bound: Uint8Array | null;
  upper_bound: Uint8Array | null;
}

/** manifest_file. Longs are bigint. null counts mean "unknown" (v1 files may omit them). */
export interface ManifestFile {
  manifest_path: string;
  manifest_length: bigint;
  partition_spec_id: number;
  content: ManifestContent;
  /** null = unassigned: the list writer fills in the new snapshot's sequence number. */
  sequence_number: bigint | null;
  min_sequence_number: bigint | null;
  added_snapshot_id: bigint;
  added_files_count: number | null;
  existing_files_count: number | null;
  deleted_files_count: number | null;
  added_rows_count: bigint | null;
  existing_rows_count: bigint | null;
  deleted_rows_count: bigint | null;
  partitions: FieldSummary[] | null;
  key_metadata: Uint8Array | null;
  /** v3: first row id of the manifest's data files without their own. */
  first_row_id: bigint | null;
}

const opt = (type: unknown) => ['null', type];
const field = (name: string, id: number, type: unknown, optional = false) =>
  optional ? { name, type: opt(type), default: null, 'field-id': id } : { name, type, 'field-id': id };

/** manifest_file Avro schema for a format version, field ids per spec. */
export function manifestFileAvroSchema(formatVersion: FormatVersion): object {
  const v1 = formatVersion === 1;
  const summary = {
    type: 'array',
    'element-id': 508,
    items: {
      type: 'record',
      name: 'r508',
      fields: [
        field('contains_null', 509, 'boolean'),
        field('contains_nan', 518, 'boolean', true),
        field('lower_bound', 510, 'bytes', true),
        field('upper_bound', 511, 'bytes', true),
      ],
    },
  };
  return {
    type: 'record',
    name: 'manifest_file',
    fields: [
      field('manifest_path', 500, 'string'),
      field('manifest_length', 501, 'long'),
      field('partition_spec_id', 502, 'int'),
      ...(v1 ? [] : [field('content', 517, 'int'), field('sequence_number', 515, 'long'), field('min_sequence_number', 516, 'long')]),
      field('added_snapshot_id', 503, 'long'),
      field('added_files_count', 504, 'int', v1),
      field('existing_files_count', 505, 'int', v1),
      field('deleted_files_count', 506, 'int', v1),
      field('added_rows_count', 512, 'long', v1),
      field('existing_rows_count', 513, 'long', v1),
      field('deleted_rows_count', 514, 'long', v1),
      field('partitions', 507, summary, true),
      field('key_metadata', 519, 'bytes', true),
      ...(formatVersion >= 3 ? [field('first_row_id', 520, 'long', true)] : []),
    ],
  };
}

export interface WriteManifestListOptions {
  formatVersion: FormatVersion;
  snapshotId: bigint;
  parentSnapshotId: bigint | null;
  /** The new snapshot's sequence number (ignored for v1, where it is always 0). */
  sequenceNumber: bigint;
  /** v3: the snapshot's first-row-id (the table's next-row-id). */
  firstRowId?: bigint;
  manifests: ManifestFile[];
  codec?: AvroCodec;
}

export interface WrittenManifestList {
  bytes: Uint8Array;
  /** Manifests as written: unassigned sequence numbers and v3 first_row_id filled in. */
  manifests: ManifestFile[];
  /** v3: rows given ids by this list (the snapshot's `added-rows`, the next-row-id increment). */
  addedRows: bigint;
}

export function writeManifestList(opts: WriteManifestListOptions): WrittenManifestList {
  const { formatVersion: v, snapshotId } = opts;
  const seq = v === 1 ? 0n : opts.sequenceNumber;
  if (v >= 3 && opts.firstRowId === undefined) throw new Error('v3 manifest lists need firstRowId');
  let nextRowId = opts.firstRowId ?? 0n;
  const manifests = opts.manifests.map((m) => {
    const out = { ...m };
    if (out.sequence_number === null) {
      // only manifests added by this snapshot may be unassigned (same check as the reference writer)
      if (out.added_snapshot_id !== snapshotId) throw new Error(`manifest ${m.manifest_path} has no sequence number`);
      out.sequence_number = seq;
    }
    if (out.min_sequence_number === null) out.min_sequence_number = out.sequence_number;
    if (v >= 3 && out.content === ManifestContent.DATA && out.first_row_id === null) {
      // spec "First Row ID Assignment": advance by added + existing rows of each assigned manifest
      out.first_row_id = nextRowId;
      nextRowId += (out.added_rows_count ?? 0n) + (out.existing_rows_count ?? 0n);
    }
    if (v < 3) out.first_row_id = null;
    return out;
  });
  const metadata: Record<string, string> = {
    'snapshot-id': String(snapshotId),
    'parent-snapshot-id': opts.parentSnapshotId === null ? 'null' : String(opts.parentSnapshotId),
    'format-version': String(v),
  };
  if (v >= 2) metadata['sequence-number'] = String(seq);
  if (v >= 3) metadata['first-row-id'] = String(opts.firstRowId);
  const records = manifests.map((m) => ({
    ...m,
    manifest_length: BigInt(m.manifest_length),
    added_snapshot_id: BigInt(m.added_snapshot_id),
    partitions: m.partitions?.map((p) => ({
      contains_null: p.contains_null,
      contains_nan: p.contains_nan,
      lower_bound: p.lower_bound ? Buffer.from(p.lower_bound) : null,
      upper_bound: p.upper_bound ? Buffer.from(p.upper_bound) : null,
    })) ?? null,
    key_metadata: m.key_metadata ? Buffer.from(m.key_metadata) : null,
  }));
  const bytes = writeAvroContainer({ schema: manifestFileAvroSchema(v), records, metadata, codec: opts.codec });
  return { bytes, manifests, addedRows: nextRowId - (opts.firstRowId ?? 0n) };
}

export interface ReadManifestList {
  formatVersion: FormatVersion;
  /** Header metadata (`snapshot-id`, `parent-snapshot-id`, `sequence-number`, ...). */
  metadata: Record<string, string>;
  manifests: ManifestFile[];
}

/** Reads a manifest list; v1 defaults per Appendix E (content 0, sequence numbers 0). */
export function readManifestList(bytes: Uint8Array): ReadManifestList {
  const file = readAvroContainer(bytes);
  const fields = byId(file.schema);
  const summaryFields = byId(fields.get(507)?.schema?.items);
  const manifests = file.records.map((r: any): ManifestFile => {
    const get = (id: number) => fieldValue(fields, r, id);
    const bytesOrNull = (b: Uint8Array | null | undefined) => (b ? new Uint8Array(b) : null);
    return {
      manifest_path: get(500),
      manifest_length: get(501),
      partition_spec_id: get(502),
      content: (get(517) ?? 0) as ManifestContent,
      sequence_number: get(515) ?? 0n,
      min_sequence_number: get(516) ?? 0n,
      added_snapshot_id: get(503),
      added_files_count: get(504) ?? null,
      existing_files_count: get(505) ?? null,
      deleted_files_count: get(506) ?? null,
      added_rows_count: get(512) ?? null,
      existing_rows_count: get(513) ?? null,
      deleted_rows_count: get(514) ?? null,
      partitions: (get(507) as any[] | null | undefined)?.map((s) => ({
        contains_null: fieldValue(summaryFields, s, 509),
        contains_nan: fieldValue(summaryFields, s, 518) ?? null,
        lower_bound: bytesOrNull(fieldValue(summaryFields, s, 510)),
        upper_bound: bytesOrNull(fieldValue(summaryFields, s, 511)),
      })) ?? null,
      key_metadata: bytesOrNull(get(519)),
      first_row_id: get(520) ?? null,
    };
  });
  return { formatVersion: Number(file.metadata['format-version'] ?? 1) as FormatVersion, metadata: file.metadata, manifests };
}
