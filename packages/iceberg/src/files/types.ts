// Iceberg schema and partition-spec shapes as the REST spec and table metadata JSON
// carry them (Appendix C), plus the few type helpers the file writers need.
// Kept independent of ../metadata so this folder can be used on its own.

export interface StructType {
  type: 'struct';
  fields: NestedField[];
}

export interface ListType {
  type: 'list';
  'element-id': number;
  'element-required': boolean;
  element: IcebergType;
}

export interface MapType {
  type: 'map';
  'key-id': number;
  key: IcebergType;
  'value-id': number;
  'value-required': boolean;
  value: IcebergType;
}

/** Primitive types are JSON strings: 'int', 'decimal(9,2)', 'fixed[16]', ... */
export type IcebergType = string | StructType | ListType | MapType;

export interface NestedField {
  id: number;
  name: string;
  required: boolean;
  type: IcebergType;
  doc?: string;
  'initial-default'?: unknown;
  'write-default'?: unknown;
}

export interface IcebergSchema extends StructType {
  'schema-id'?: number;
  'identifier-field-ids'?: number[];
}

export interface PartitionField {
  'source-id'?: number;
  'source-ids'?: number[];
  'field-id': number;
  name: string;
  transform: string;
}

export interface PartitionSpec {
  'spec-id': number;
  fields: PartitionField[];
}

export type FormatVersion = 1 | 2 | 3;

export type Primitive =
  | { kind: 'boolean' | 'int' | 'long' | 'float' | 'double' | 'date' | 'time' | 'timestamp' | 'timestamptz'
      | 'timestamp_ns' | 'timestamptz_ns' | 'string' | 'uuid' | 'binary' | 'unknown' | 'variant' }
  | { kind: 'decimal'; precision: number; scale: number }
  | { kind: 'fixed'; length: number }
  | { kind: 'geometry' | 'geography'; params: string };

const SIMPLE = new Set([
  'boolean', 'int', 'long', 'float', 'double', 'date', 'time', 'timestamp', 'timestamptz',
  'timestamp_ns', 'timestamptz_ns', 'string', 'uuid', 'binary', 'unknown', 'variant',
]);

/** Parses a primitive type string; readers must accept whitespace around parameters (Appendix C). */
export function parsePrimitive(type: string): Primitive {
  const t = type.trim();
  if (SIMPLE.has(t)) return { kind: t } as Primitive;
  let m = /^decimal\s*\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$/.exec(t);
  if (m) return { kind: 'decimal', precision: Number(m[1]), scale: Number(m[2]) };
  m = /^fixed\s*\[\s*(\d+)\s*\]$/.exec(t);
  if (m) return { kind: 'fixed', length: Number(m[1]) };
  m = /^(geometry|geography)\s*(?:\((.*)\))?$/.exec(t);
  if (m) return { kind: m[1] as 'geometry' | 'geography', params: m[2] ?? '' };
  throw new Error(`unsupported Iceberg type: ${type}`);
}

export function isPrimitive(type: IcebergType): type is string {
  return typeof type === 'string';
}

/** Smallest byte count whose two's complement range holds every unscaled value of precision P. */
export function decimalRequiredBytes(precision: number): number {
  const limit = 10n ** BigInt(precision);
  for (let n = 1; ; n++) if (2n ** BigInt(8 * n - 1) >= limit) return n;
}

/** Every field (at any depth, including list elements and map keys/values) by id. */
export function indexFields(schema: StructType): Map<number, { name: string; type: IcebergType; required: boolean }> {
  const out = new Map<number, { name: string; type: IcebergType; required: boolean }>();
  const visit = (type: IcebergType, prefix: string) => {
    if (typeof type === 'string') return;
    if (type.type === 'struct') {
      for (const f of type.fields) {
        const name = prefix ? `${prefix}.${f.name}` : f.name;
        out.set(f.id, { name, type: f.type, required: f.required });
        visit(f.type, name);
      }
    } else if (type.type === 'list') {
      const name = `${prefix}.element`;
      out.set(type['element-id'], { name, type: type.element, required: type['element-required'] });
      visit(type.element, name);
    } else {
      out.set(type['key-id'], { name: `${prefix}.key`, type: type.key, required: true });
      out.set(type['value-id'], { name: `${prefix}.value`, type: type.value, required: type['value-required'] });
      visit(type.key, `${prefix}.key`);
      visit(type.value, `${prefix}.value`);
    }
  };
  visit(schema, '');
  return out;
}

/**
 * Result type of a partition transform (spec "Partition Transforms"). Unknown
 * transforms are typed as string, as the reference implementation does, so a
 * manifest using one can still be read.
 */
export function partitionResultType(field: PartitionField, schema: StructType): string {
  const t = field.transform.trim();
  if (/^bucket\[\d+\]$/.test(t) || t === 'year' || t === 'month' || t === 'hour') return 'int';
  if (t === 'day') return 'date';
  const sourceId = field['source-id'] ?? field['source-ids']?.[0];
  const source = sourceId === undefined ? undefined : indexFields(schema).get(sourceId);
  if (t === 'identity' || /^truncate\[\d+\]$/.test(t) || t === 'void') {
    if (source && typeof source.type === 'string') return source.type;
    if (t === 'void') return 'int'; // source dropped from the schema: void may be typed int
    throw new Error(`partition field ${field.name}: source field ${sourceId} not found in schema`);
  }
  return 'string';
}

/** The partition tuple type of a spec: one optional field per partition field, ids from the spec. */
export function partitionType(spec: PartitionSpec, schema: StructType): StructType {
  return {
    type: 'struct',
    fields: spec.fields.map((f) => ({
      id: f['field-id'],
      name: f.name,
      required: false,
      type: partitionResultType(f, schema),
    })),
  };
}
