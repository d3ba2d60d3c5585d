// An Iceberg schema as DuckDB reads and writes it: the DuckDB type of each
// field, the `schema` map that makes read_parquet find top-level columns by
// field id (so renamed, added and reordered columns read right), the
// FIELD_IDS option that puts every field id, nested ones included, into the
// written Parquet schema, and the Parquet leaf columns in the order DuckDB
// writes them (the order parquet_metadata's column_id counts).
//
// Refused (UnsupportedSchemaError) rather than written wrong: fixed[L]
// (DuckDB has no fixed-length binary: it would write BYTE_ARRAY where Iceberg
// requires FIXED_LEN_BYTE_ARRAY), timestamptz_ns (no DuckDB type), variant,
// geometry, geography, `unknown` inside a struct/list/map (top-level unknown
// columns are left out of data files, as Iceberg says), and fields with a
// non-null initial-default (rows of older files would need the default).
import { requirePrimitive, type IcebergType, type Schema, type StructField } from '@floe/iceberg';
import { ident, literal } from './sql.js';

export class UnsupportedSchemaError extends Error {
  override name = 'UnsupportedSchemaError';
}

/** A primitive Parquet column: metrics are kept for leaves outside lists and maps only. */
export interface Leaf {
  id: number;
  type: string;
  inRepeated: boolean;
}

/** Top-level fields a data file holds: `unknown` columns are omitted from data files. */
export function writtenFields(schema: Schema): StructField[] {
  return schema.fields.filter((f) => typeof f.type !== 'string' || requirePrimitive(f.type).kind !== 'unknown');
}

/** Name of a top-level column while a rewrite reads it: `c<id>` can never clash with read_parquet's own columns. */
export const readName = (id: number): string => `c${id}`;

const DUCK_PRIMITIVES: Record<string, string> = {
  boolean: 'BOOLEAN', int: 'INTEGER', long: 'BIGINT', float: 'FLOAT', double: 'DOUBLE', date: 'DATE',
  time: 'TIME', timestamp: 'TIMESTAMP', timestamptz: 'TIMESTAMPTZ', timestamp_ns: 'TIMESTAMP_NS',
  string: 'VARCHAR', uuid: 'UUID', binary: 'BLOB',
};

export function duckType(type: IcebergType): string {
  if (typeof type === 'string') {
    const p = requirePrimitive(type);
    if (p.kind === 'decimal') return `DECIMAL(${p.precision},${p.scale})`;
    const t = DUCK_PRIMITIVES[p.kind];
    if (!t) throw new UnsupportedSchemaError(`${type} columns are not supported by the engine yet`);
    return t;
  }
  if (type.type === 'struct') {
    for (const f of type.fields) checkField(f);
    return `STRUCT(${type.fields.map((f) => `${ident(f.name)} ${duckType(f.type)}`).join(', ')})`;
  }
  if (type.type === 'list') return `${duckType(type.element)}[]`;
  return `MAP(${duckType(type.key)}, ${duckType(type.value)})`;
}

function checkField(f: StructField): void {
  if (f['initial-default'] !== undefined && f['initial-default'] !== null) {
    throw new UnsupportedSchemaError(`field ${f.name} has an initial-default, which the engine does not apply yet`);
  }
  if (f.name === '__duckdb_field_id') throw new UnsupportedSchemaError('a field may not be named __duckdb_field_id');
}

/** read_parquet's `schema` parameter: field id -> {name, type}; a column a file lacks reads as null. */
export function readSchemaParam(fields: readonly { id: number; name: string; type: string }[]): string {
  const entries = fields.map((f) => `${f.id}: {name: ${literal(f.name)}, type: ${literal(f.type)}, default_value: NULL}`);
  return `MAP {${entries.join(', ')}}`;
}

/** The top-level fields of a schema as read_parquet's schema entries, named by readName. */
export function readFields(fields: readonly StructField[]): { id: number; name: string; type: string }[] {
  return fields.map((f) => {
    checkField(f);
    return { id: f.id, name: readName(f.id), type: duckType(f.type) };
  });
}

/** COPY's FIELD_IDS value: {name: id} for primitives, {__duckdb_field_id: id, child: …} for nested types. */
export function fieldIdsOption(fields: readonly { id: number; name: string; type: IcebergType }[]): string {
  return `{${fields.map((f) => `${literal(f.name)}: ${fieldIdsOf(f.id, f.type)}`).join(', ')}}`;
}

function fieldIdsOf(id: number, type: IcebergType): string {
  if (typeof type === 'string') return String(id);
  const own = `'__duckdb_field_id': ${id}`;
  if (type.type === 'struct') return `{${own}, ${type.fields.map((c) => `${literal(c.name)}: ${fieldIdsOf(c.id, c.type)}`).join(', ')}}`;
  if (type.type === 'list') return `{${own}, 'element': ${fieldIdsOf(type['element-id'], type.element)}}`;
  return `{${own}, 'key': ${fieldIdsOf(type['key-id'], type.key)}, 'value': ${fieldIdsOf(type['value-id'], type.value)}}`;
}

/** Parquet leaf columns in write order: struct children in order, a list's element, a map's key then value. */
export function leavesOf(fields: readonly { id: number; type: IcebergType }[]): Leaf[] {
  const out: Leaf[] = [];
  const walk = (id: number, type: IcebergType, inRepeated: boolean): void => {
    if (typeof type === 'string') out.push({ id, type, inRepeated });
    else if (type.type === 'struct') for (const c of type.fields) walk(c.id, c.type, inRepeated);
    else if (type.type === 'list') walk(type['element-id'], type.element, true);
    else {
      walk(type['key-id'], type.key, true);
      walk(type['value-id'], type.value, true);
    }
  };
  for (const f of fields) walk(f.id, f.type, false);
  return out;
}
