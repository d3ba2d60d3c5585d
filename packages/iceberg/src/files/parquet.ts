// Iceberg data files in Parquet (Appendix A "Parquet"), written with hyparquet-writer,
// plus the per-column metrics the manifest needs.
import { gzipSync } from 'node:zlib';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { compressSync } from 'snappy';
import type { SchemaElement } from 'hyparquet';
import type { DataFile } from './manifest.js';
import type { PartitionData } from './partition.js';
import { stringifyJson } from '../metadata/json.js';
import type { IcebergType, Schema, StructField } from '../metadata/model.js';
import { parsePrimitiveType, type ParsedPrimitive } from '../metadata/types.js';
import { decimalRequiredBytes, requirePrimitive } from './types.js';
import {
  compareValues, toBinary, toInternal, truncateBinaryLower, truncateBinaryUpper, truncateStringLower,
  truncateStringUpper, DEFAULT_TRUNCATE_LENGTH, type IcebergValue,
} from './values.js';

export type ParquetCodec = 'SNAPPY' | 'GZIP' | 'UNCOMPRESSED';

/**
 * Values by top-level field name: nested structs as objects, lists as arrays,
 * maps as Map/object/[k,v][]. Either row by row, or column by column (each
 * array `rowCount` long; a column left out is all null), which spares a
 * writer that already holds columns an object per row.
 */
export type ParquetValues =
  | { rows: Record<string, unknown>[] }
  | { columns: Record<string, unknown[]>; rowCount: number };

export type WriteParquetOptions = ParquetValues & {
  /** Table schema as in table metadata: `{type:'struct', fields:[{id,name,required,type}]}`. */
  schema: Schema;
  codec?: ParquetCodec;
  rowGroupSize?: number;
  /** Code points (strings) / bytes (binary) kept in bounds; the reference default is 16. */
  truncateLength?: number;
}

/** Metrics for the manifest's data_file, keyed by Iceberg field id. */
export interface DataFileStats {
  record_count: bigint;
  file_size_in_bytes: bigint;
  column_sizes: Map<number, bigint>;
  value_counts: Map<number, bigint>;
  null_value_counts: Map<number, bigint>;
  nan_value_counts: Map<number, bigint>;
  lower_bounds: Map<number, Uint8Array>;
  upper_bounds: Map<number, Uint8Array>;
  split_offsets: bigint[];
}

/** Stats with no column metrics yet: each writer (this one, the engine's footer reader) fills them in. */
export function emptyStats(recordCount: bigint, fileSizeInBytes: bigint): DataFileStats {
  return {
    record_count: recordCount,
    file_size_in_bytes: fileSizeInBytes,
    column_sizes: new Map(),
    value_counts: new Map(),
    null_value_counts: new Map(),
    nan_value_counts: new Map(),
    lower_bounds: new Map(),
    upper_bounds: new Map(),
    split_offsets: [],
  };
}

export interface WrittenParquet {
  bytes: Uint8Array;
  stats: DataFileStats;
}

/** Per-leaf accumulator. Leaves under a list or map get no metrics (omitting metrics is always valid). */
interface Leaf {
  id: number;
  type: string;
  inRepeated: boolean;
  values: bigint;
  nulls: bigint;
  nans: bigint;
  min?: IcebergValue;
  max?: IcebergValue;
}

export function writeParquetDataFile(opts: WriteParquetOptions): WrittenParquet {
  const { schema } = opts;
  const rowCount = 'rows' in opts ? opts.rows.length : opts.rowCount;
  const valuesOf = (f: StructField): unknown[] => ('rows' in opts ? opts.rows.map((r) => r?.[f.name])
    : opts.columns[f.name] ?? new Array<unknown>(rowCount).fill(null));
  const elements: SchemaElement[] = [{ name: 'table', num_children: 0 }];
  const leafByPath = new Map<string, Leaf>();
  // unknown: omitted from data files. Compared parsed, as type names are case-insensitive.
  const topLevel = schema.fields.filter((f) => typeof f.type !== 'string' || parsePrimitiveType(f.type)?.kind !== 'unknown');
  elements[0].num_children = topLevel.length;
  for (const f of topLevel) addElements(elements, leafByPath, f, [], false);

  const leaves = new Map<number, Leaf>([...leafByPath.values()].map((l) => [l.id, l]));
  const columnData = topLevel.map((f) => {
    const values = valuesOf(f);
    if (values.length !== rowCount) throw new RangeError(`column ${f.name} has ${values.length} values for ${rowCount} rows`);
    if (typeof f.type !== 'string') return { name: f.name, data: values.map((v) => normalize(f.type, f.required, v, leaves, false, f.name, f.id)) };
    const p = requirePrimitive(f.type);
    const leaf = leaves.get(f.id)!;
    if (INT64_KINDS.has(p.kind)) return { name: f.name, data: int64Column(p, f.required, values, leaf, f.name) };
    if (p.kind === 'string') return { name: f.name, data: utf8Values(stringColumn(p, f.required, values, leaf, f.name)) };
    return { name: f.name, data: values.map((v) => leafValue(p, f.required, v, leaf, false, f.name)) };
  });

  const writer = new ByteWriter();
  const codec = opts.codec ?? 'SNAPPY';
  const pq = new ParquetWriter({
    writer,
    schema: elements,
    codec,
    // Native snappy: the writer's own JavaScript one took a fifth of the time to write a file.
    compressors: { SNAPPY: (b: Uint8Array) => compressSync(b), GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)) },
    // Field defaults from parsed metadata may be bigints, which JSON.stringify refuses.
    kvMetadata: [{ key: 'iceberg.schema', value: stringifyJson(schema) }],
    createdBy: 'floe (hyparquet-writer)',
  });
  pq.write({ columnData, rowGroupSize: opts.rowGroupSize ?? 100_000 });
  pq.finish();
  const bytes = writer.getBytes().slice();

  const stats = emptyStats(BigInt(rowCount), BigInt(bytes.length));
  for (const rg of pq.row_groups) {
    let start: bigint | undefined;
    for (const chunk of rg.columns) {
      const md = chunk.meta_data!;
      const leaf = leafByPath.get(md.path_in_schema.join('\u0000'));
      if (leaf) stats.column_sizes.set(leaf.id, (stats.column_sizes.get(leaf.id) ?? 0n) + md.total_compressed_size);
      const offset = md.dictionary_page_offset ?? md.data_page_offset;
      if (start === undefined || offset < start) start = offset;
    }
    if (start !== undefined) stats.split_offsets.push(start);
  }
  const truncate = opts.truncateLength ?? DEFAULT_TRUNCATE_LENGTH;
  for (const leaf of leaves.values()) {
    if (leaf.inRepeated) continue;
    stats.value_counts.set(leaf.id, leaf.values);
    stats.null_value_counts.set(leaf.id, leaf.nulls);
    const kind = requirePrimitive(leaf.type).kind;
    if (kind === 'float' || kind === 'double') stats.nan_value_counts.set(leaf.id, leaf.nans);
    if (leaf.min === undefined || leaf.max === undefined) continue;
    const [lower, upper] = truncateBounds(kind, leaf.min, leaf.max, truncate);
    if (lower !== undefined) stats.lower_bounds.set(leaf.id, toBinary(leaf.type, lower));
    if (upper !== undefined) stats.upper_bounds.set(leaf.id, toBinary(leaf.type, upper));
  }
  return { bytes, stats };
}

function truncateBounds(kind: string, min: IcebergValue, max: IcebergValue, n: number): [IcebergValue?, IcebergValue?] {
  if (kind === 'string') return [truncateStringLower(min as string, n), truncateStringUpper(max as string, n)];
  if (kind === 'binary') return [truncateBinaryLower(min as Uint8Array, n), truncateBinaryUpper(max as Uint8Array, n)];
  return [min, max];
}

/** The manifest data_file for a written Parquet file (content DATA, inherited lineage fields left null). */
export function parquetDataFile(path: string, stats: DataFileStats, partition: PartitionData = {}, sortOrderId?: number): DataFile {
  return {
    content: 0,
    file_path: path,
    file_format: 'parquet',
    partition,
    ...stats,
    sort_order_id: sortOrderId ?? null,
  };
}

// ---- Iceberg schema -> Parquet schema elements ----

function addElements(out: SchemaElement[], leaves: Map<string, Leaf>, f: StructField, path: string[], inRepeated: boolean): void {
  addType(out, leaves, f.name, f.id, f.type, f.required, path, inRepeated);
}

function addType(
  out: SchemaElement[], leaves: Map<string, Leaf>, name: string, id: number, type: IcebergType,
  required: boolean, path: string[], inRepeated: boolean,
): void {
  const repetition_type = required ? 'REQUIRED' : 'OPTIONAL';
  const here = [...path, name];
  if (typeof type === 'string') {
    out.push({ name, repetition_type, field_id: id, ...primitiveElement(type) });
    leaves.set(here.join('\u0000'), { id, type, inRepeated, values: 0n, nulls: 0n, nans: 0n });
  } else if (type.type === 'struct') {
    out.push({ name, repetition_type, field_id: id, num_children: type.fields.length });
    for (const c of type.fields) addType(out, leaves, c.name, c.id, c.type, c.required, here, inRepeated);
  } else if (type.type === 'list') {
    // 3-level list (required by the spec): <name> LIST { repeated group list { element } }
    out.push({ name, repetition_type, field_id: id, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } });
    out.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
    addType(out, leaves, 'element', type['element-id'], type.element, type['element-required'], [...here, 'list'], true);
  } else {
    out.push({ name, repetition_type, field_id: id, num_children: 1, converted_type: 'MAP', logical_type: { type: 'MAP' } });
    out.push({ name: 'key_value', repetition_type: 'REPEATED', num_children: 2 });
    addType(out, leaves, 'key', type['key-id'], type.key, true, [...here, 'key_value'], true);
    addType(out, leaves, 'value', type['value-id'], type.value, type['value-required'], [...here, 'key_value'], true);
  }
}

/** Physical and logical Parquet type for an Iceberg primitive (Appendix A table). */
function primitiveElement(type: string): Partial<SchemaElement> {
  const p = requirePrimitive(type);
  switch (p.kind) {
    case 'boolean': return { type: 'BOOLEAN' };
    case 'int': return { type: 'INT32' };
    case 'long': return { type: 'INT64' };
    case 'float': return { type: 'FLOAT' };
    case 'double': return { type: 'DOUBLE' };
    case 'date': return { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } };
    // Converted TIME_MICROS/TIMESTAMP_MICROS imply UTC adjustment, so only the tz-aware type gets one.
    case 'time': return { type: 'INT64', logical_type: { type: 'TIME', isAdjustedToUTC: false, unit: 'MICROS' } };
    case 'timestamp': return { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' } };
    case 'timestamptz':
      return { type: 'INT64', converted_type: 'TIMESTAMP_MICROS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } };
    case 'timestamp_ns': return { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'NANOS' } };
    case 'timestamptz_ns': return { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' } };
    case 'string': return { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
    case 'uuid': return { type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, logical_type: { type: 'UUID' } };
    case 'fixed': return { type: 'FIXED_LEN_BYTE_ARRAY', type_length: p.length };
    case 'binary': return { type: 'BYTE_ARRAY' };
    case 'decimal': {
      const precision = p.precision!;
      const scale = p.scale!;
      const physical: Partial<SchemaElement> =
        precision <= 9 ? { type: 'INT32' } : precision <= 18 ? { type: 'INT64' }
          : { type: 'FIXED_LEN_BYTE_ARRAY', type_length: decimalRequiredBytes(precision) };
      return { ...physical, converted_type: 'DECIMAL', precision, scale, logical_type: { type: 'DECIMAL', precision, scale } };
    }
    default:
      throw new Error(`writing ${type} columns to Parquet is not supported`);
  }
}

/**
 * A string column's values as UTF-8 byte arrays, encoded in one native call
 * for the whole column, each value a view of its own bytes: the writer would
 * otherwise call TextEncoder once per value, which costs more than the rest
 * of writing the column.
 */
function utf8Values(values: unknown[]): unknown[] {
  const joined = values.join(''); // null joins as ''
  const all = Buffer.from(joined, 'utf8');
  const ascii = all.length === joined.length;
  const out = new Array<unknown>(values.length);
  let offset = all.byteOffset;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'string') {
      out[i] = v;
      continue;
    }
    const length = ascii ? v.length : utf8Length(v);
    // A plain view, not Buffer#subarray: that goes through Buffer's constructor once per value.
    out[i] = new Uint8Array(all.buffer, offset, length);
    offset += length;
  }
  return out;
}

/** Bytes of a string in UTF-8 as Buffer.from writes it (a lone surrogate becomes U+FFFD, 3 bytes). */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: 2 UTF-16 units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

// ---- row values -> hyparquet-writer values, collecting metrics on the way ----

function normalize(
  type: IcebergType, required: boolean, v: unknown, leaves: Map<number, Leaf>, inRepeated: boolean, name: string, id: number,
): unknown {
  if (typeof type === 'string') return leafValue(requirePrimitive(type), required, v, leaves.get(id)!, inRepeated, name);
  if (v === null || v === undefined) {
    if (required) throw new Error(`required field ${name} is null`);
    if (type.type === 'struct') countNullStruct(type, leaves); // children of a null struct are null
    return null;
  }
  if (type.type === 'struct') {
    const obj = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const c of type.fields) out[c.name] = normalize(c.type, c.required, obj[c.name], leaves, inRepeated, `${name}.${c.name}`, c.id);
    return out;
  }
  if (type.type === 'list') {
    if (!Array.isArray(v)) throw new TypeError(`list field ${name} must be an array`);
    return v.map((e) => normalize(type.element, type['element-required'], e, leaves, true, `${name}.element`, type['element-id']));
  }
  const entries: [unknown, unknown][] =
    v instanceof Map ? [...v] : Array.isArray(v) ? v.map((e) => (Array.isArray(e) ? e : [e.key, e.value])) as [unknown, unknown][]
      : Object.entries(v as object);
  return entries.map(([k, val]) => ({
    key: normalize(type.key, true, k, leaves, true, `${name}.key`, type['key-id']),
    value: normalize(type.value, type['value-required'], val, leaves, true, `${name}.value`, type['value-id']),
  }));
}

// ---- whole top-level columns: the common kinds in one typed loop each ----
// A roll writes hundreds of thousands of values per column; the per-value
// path below (conversion, generic comparison, a closure per value) was a
// third of writing a file.

/** Kinds written as INT64 whose internal value is a bigint. */
const INT64_KINDS = new Set(['long', 'time', 'timestamp', 'timestamptz', 'timestamp_ns', 'timestamptz_ns']);

function int64Column(p: ParsedPrimitive, required: boolean, values: unknown[], leaf: Leaf, name: string): unknown[] {
  const out = new Array<unknown>(values.length);
  let nulls = 0;
  let min = leaf.min as bigint | undefined;
  let max = leaf.max as bigint | undefined;
  for (let i = 0; i < values.length; i++) {
    let v = values[i];
    if (v === null || v === undefined) {
      if (required) throw new Error(`required field ${name} is null`);
      nulls++;
      out[i] = null;
      continue;
    }
    // Bigints (what mapped rows hold) are taken as they are; the writer range-checks INT64 itself.
    if (typeof v !== 'bigint') v = toInternal(p, v) as bigint;
    const b = v as bigint;
    if (min === undefined || b < min) min = b;
    if (max === undefined || b > max) max = b;
    out[i] = b;
  }
  countInto(leaf, values.length, nulls, min, max);
  return out;
}

function stringColumn(p: ParsedPrimitive, required: boolean, values: unknown[], leaf: Leaf, name: string): unknown[] {
  let nulls = 0;
  let min = leaf.min as string | undefined;
  let max = leaf.max as string | undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      if (required) throw new Error(`required field ${name} is null`);
      nulls++;
      continue;
    }
    if (typeof v !== 'string') toInternal(p, v); // throws, naming what it got
    const s = v as string;
    if (min === undefined || compareValues(s, min) < 0) min = s;
    if (max === undefined || compareValues(s, max) > 0) max = s;
  }
  countInto(leaf, values.length, nulls, min, max);
  return values;
}

function countInto(leaf: Leaf, count: number, nulls: number, min: IcebergValue | undefined, max: IcebergValue | undefined): void {
  leaf.values += BigInt(count);
  leaf.nulls += BigInt(nulls);
  leaf.min = min;
  leaf.max = max;
}

/** One primitive value for the writer, counted into its leaf's metrics. */
function leafValue(p: ParsedPrimitive, required: boolean, v: unknown, leaf: Leaf, inRepeated: boolean, name: string): unknown {
  const internal = toInternal(p, v);
  leaf.values++;
  if (internal === null) {
    if (required) throw new Error(`required field ${name} is null`);
    leaf.nulls++;
    return null;
  }
  if (typeof internal === 'number' && Number.isNaN(internal)) leaf.nans++;
  else if (!inRepeated) {
    if (leaf.min === undefined || compareValues(internal, leaf.min) < 0) leaf.min = internal;
    if (leaf.max === undefined || compareValues(internal, leaf.max) > 0) leaf.max = internal;
  }
  return p.kind === 'uuid' ? toBinary(p, internal) : internal;
}

function countNullStruct(type: IcebergType, leaves: Map<number, Leaf>): void {
  if (typeof type === 'string' || type.type !== 'struct') return;
  for (const c of type.fields) {
    if (typeof c.type === 'string') {
      const leaf = leaves.get(c.id)!;
      leaf.values++;
      leaf.nulls++;
    } else countNullStruct(c.type, leaves);
  }
}
