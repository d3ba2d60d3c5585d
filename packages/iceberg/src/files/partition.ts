// The manifest's typed partition tuple (data_file field 102): its Avro schema,
// derived from the partition spec, and conversion of values to and from avsc.
import { sanitizeAvroName } from './avro.js';
import { partitionFieldId } from '../metadata/helpers.js';
import type { PartitionSpec, Schema } from '../metadata/model.js';
import { decimalRequiredBytes, partitionType, requirePrimitive } from './types.js';
import { bigintToBytes, bytesToBigint, toInternal, uuidFromBytes, uuidToBytes, type IcebergValue } from './values.js';

/** Partition values keyed by partition field name, in the representation of values.ts. */
export type PartitionData = Record<string, IcebergValue | null>;

/**
 * A partition tuple as an exact, order-independent key, values tagged by
 * kind (bytes, bigints and NaN have no plain JSON form): which files share a
 * partition, for an append's changed-partition count, compaction's groups
 * and the deletes that reach them.
 */
export function partitionKey(partition: PartitionData | undefined): string {
  const fields = Object.entries(partition ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(fields.map(([name, v]) => [name, tagged(v)]));
}

function tagged(v: PartitionData[string]): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Uint8Array) return `b:${Buffer.from(v).toString('hex')}`;
  if (typeof v === 'bigint') return `n:${v}`;
  return `${typeof v}:${String(v)}`;
}

/** Avro schema for one primitive Iceberg type (Appendix A); named types are defined once. */
export function avroPrimitive(type: string, defined: Set<string>): unknown {
  const p = requirePrimitive(type);
  const named = (name: string, def: object) => {
    if (defined.has(name)) return name; // Avro: a named type may only be defined once per schema
    defined.add(name);
    return { type: 'fixed', name, ...def };
  };
  switch (p.kind) {
    case 'boolean': case 'int': case 'long': case 'float': case 'double': case 'string': return p.kind;
    case 'binary': case 'geometry': case 'geography': return 'bytes';
    case 'date': return { type: 'int', logicalType: 'date' };
    case 'time': return { type: 'long', logicalType: 'time-micros' };
    case 'timestamp': case 'timestamptz':
      return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': p.kind === 'timestamptz' };
    case 'timestamp_ns': case 'timestamptz_ns':
      return { type: 'long', logicalType: 'timestamp-nanos', 'adjust-to-utc': p.kind === 'timestamptz_ns' };
    case 'uuid': return named('uuid_fixed', { size: 16, logicalType: 'uuid' });
    case 'fixed': return named(`fixed_${p.length}`, { size: p.length });
    case 'decimal':
      return named(`decimal_${p.precision}_${p.scale}`, {
        size: decimalRequiredBytes(p.precision!), logicalType: 'decimal', precision: p.precision, scale: p.scale,
      });
    default:
      throw new Error(`type ${type} cannot be a partition value`);
  }
}

/** Avro record for the partition tuple: every field optional, ids from the spec. */
export function partitionAvroSchema(spec: PartitionSpec, schema: Schema, defined = new Set<string>()): object {
  const struct = partitionType(spec, schema);
  return {
    type: 'record',
    name: 'r102',
    fields: struct.fields.map((f) => ({
      name: sanitizeAvroName(f.name),
      type: ['null', avroPrimitive(f.type as string, defined)],
      default: null,
      'field-id': f.id,
    })),
  };
}

/** Internal partition values -> the record avsc writes (Buffers for bytes/fixed). */
export function partitionToAvro(spec: PartitionSpec, schema: Schema, data: PartitionData | undefined): Record<string, unknown> {
  const struct = partitionType(spec, schema);
  const out: Record<string, unknown> = {};
  for (const f of struct.fields) {
    const v = toInternal(f.type as string, data?.[f.name]);
    out[sanitizeAvroName(f.name)] = v === null ? null : avroValue(f.type as string, v);
  }
  return out;
}

function avroValue(type: string, v: IcebergValue): unknown {
  const p = requirePrimitive(type);
  if (p.kind === 'uuid') return Buffer.from(uuidToBytes(v as string));
  if (p.kind === 'decimal') return Buffer.from(bigintToBytes(v as bigint, decimalRequiredBytes(p.precision!)));
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

/**
 * Decoded partition record -> internal values keyed by spec field name. Types
 * come from the file's own Avro schema (so no table schema is needed to read)
 * and fields are matched by `field-id`, falling back to the Avro name.
 */
export function partitionFromAvro(avroSchema: any, record: Record<string, unknown>, spec?: PartitionSpec): PartitionData {
  const out: PartitionData = {};
  const named = new Map<string, any>(); // a repeated named type is a bare name reference
  for (const f of (avroSchema?.fields ?? []) as any[]) {
    const specField = spec?.fields.find((s, i) => partitionFieldId(s, i) === f['field-id']);
    const name = specField?.name ?? f.name;
    const raw = record[f.name];
    let branch = Array.isArray(f.type) ? f.type.find((t: unknown) => t !== 'null') : f.type;
    if (typeof branch === 'string' && named.has(branch)) branch = named.get(branch);
    else if (branch?.name) named.set(branch.name, branch);
    out[name] = raw === null || raw === undefined ? null : valueFromAvro(branch, raw);
  }
  return out;
}

function valueFromAvro(type: any, raw: unknown): IcebergValue {
  if (raw instanceof Uint8Array) {
    const bytes = new Uint8Array(raw);
    if (type?.logicalType === 'decimal') return bytesToBigint(bytes);
    if (type?.logicalType === 'uuid') return uuidFromBytes(bytes);
    return bytes;
  }
  return raw as IcebergValue;
}
