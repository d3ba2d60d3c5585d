// A new table's Iceberg schema and format version as `floe tables create`
// and `floe catalogs create` take them on the command line: the compact
// `--columns "id:long!,msg:string,at:timestamptz"` spelling (`!` marks a
// required column; field ids from 1 in the order given, which the catalog
// reassigns as it does for any create), a whole struct schema as JSON, and
// `--format-version 2|3`. Only the shape is checked here; the catalog judges
// the schema itself.
import { InvalidArgumentError } from 'commander';

export interface SchemaField {
  id: number;
  name: string;
  required: boolean;
  type: unknown;
}

/** An Iceberg struct schema as the create route takes it. */
export interface StructSchema {
  type: 'struct';
  'schema-id'?: number;
  fields: SchemaField[];
  [key: string]: unknown;
}

export type FormatVersion = 2 | 3;

const PRIMITIVES = new Set(['boolean', 'int', 'long', 'float', 'double', 'date', 'time', 'timestamp', 'timestamptz', 'string', 'uuid', 'binary']);
const DECIMAL = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/;
/** Iceberg's widest decimal. */
const MAX_PRECISION = 38;

/** `2` or `3`, for `--format-version`. */
export function parseFormatVersion(text: string): FormatVersion {
  if (text === '2') return 2;
  if (text === '3') return 3;
  throw new InvalidArgumentError('the format version is 2 or 3');
}

/** One column's type as Iceberg's JSON spells it (`decimal(10,2)`), or an error naming the types there are. */
function columnType(text: string, column: string): string {
  const t = text.trim().toLowerCase();
  if (PRIMITIVES.has(t)) return t;
  const d = DECIMAL.exec(t);
  if (d) {
    const [precision, scale] = [Number(d[1]), Number(d[2])];
    if (precision < 1 || precision > MAX_PRECISION || scale > precision) {
      throw new InvalidArgumentError(`column ${column}: decimal(P,S) takes a precision P from 1 to ${MAX_PRECISION} and a scale S from 0 to P`);
    }
    return `decimal(${precision},${scale})`;
  }
  throw new InvalidArgumentError(`column ${column}: unknown type ${JSON.stringify(text.trim())}; the types are ${[...PRIMITIVES].join(', ')} and decimal(P,S)`);
}

/** Splits on the commas between columns, not those inside `decimal(P,S)`. */
function columnTexts(spec: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < spec.length; i++) {
    if (spec[i] === '(') depth++;
    else if (spec[i] === ')') depth = Math.max(0, depth - 1);
    else if (spec[i] === ',' && depth === 0) {
      parts.push(spec.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(spec.slice(start));
  return parts.map((p) => p.trim());
}

/** `id:long!,msg:string,amount:decimal(10,2)` → a struct schema whose fields are numbered from 1. */
export function parseColumns(spec: string): StructSchema {
  const names = new Set<string>();
  const fields = columnTexts(spec).map((text, i): SchemaField => {
    const colon = text.indexOf(':');
    const name = colon < 0 ? text : text.slice(0, colon).trim();
    if (colon < 0 || name === '') throw new InvalidArgumentError(`column ${i + 1}: write it as name:type (or name:type! when required), not ${JSON.stringify(text)}`);
    if (names.has(name)) throw new InvalidArgumentError(`column ${name} is named twice`);
    names.add(name);
    const typeText = text.slice(colon + 1).trim();
    const required = typeText.endsWith('!');
    return { id: i + 1, name, required, type: columnType(required ? typeText.slice(0, -1) : typeText, name) };
  });
  return { type: 'struct', 'schema-id': 0, fields };
}

/**
 * A schema given as JSON: a struct schema (`{"type": "struct", "fields": […]}`)
 * or its fields alone (`[…]`). `from` names where the text came from.
 */
export function schemaFromJson(text: string, from: string): StructSchema {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InvalidArgumentError(`${from} is not JSON: ${(err as Error).message}`);
  }
  const schema = Array.isArray(parsed) ? { type: 'struct', fields: parsed } : parsed;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new InvalidArgumentError(`${from} is not a schema: give a JSON object {"type": "struct", "fields": […]}`);
  const s = schema as Record<string, unknown>;
  if (s.type !== undefined && s.type !== 'struct') throw new InvalidArgumentError(`${from}: a table schema is a struct, not ${JSON.stringify(s.type)}`);
  if (!Array.isArray(s.fields) || s.fields.length === 0) throw new InvalidArgumentError(`${from}: the schema needs a non-empty "fields" array`);
  return { ...s, type: 'struct', fields: s.fields as SchemaField[] };
}
