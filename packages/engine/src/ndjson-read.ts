// NDJSON lines read onto a table's columns in SQL, strictly: a value is read
// here only where its reading is certain to be the one packages/ingest's
// rows.ts gives it (the contract for how a sink's JSON becomes a row, with
// every reject and reason). Anything else — a value of a form this file does
// not read, a line DuckDB's JSON reader refuses (duplicate keys, a lone
// surrogate, not an object) — fails the statement, and the caller reads that
// line's whole file the JavaScript way instead. So the two readings never
// disagree: this one only covers the common forms, fast.
//
// Each column is read by read_json as text: VARCHAR where a JSON number and
// the same digits in a string mean the same to rows.ts (longs, ints, floats,
// doubles, decimals, dates, times, timestamps, uuids; DuckDB gives numbers as
// their shortest round-trip spelling, which the patterns below then read),
// JSON where they do not (strings, booleans, binary, nested types).
//
// What is read here, per type (everything else goes the JavaScript way):
//   long      -?digits, no leading zero, up to 18 digits
//   int       the same, in the 32-bit range
//   double    -?digits[.digits][e±dd], up to 100 integer digits (always finite)
//   float     the same, within float's range, rounded through double as rows.ts does
//   decimal   -?digits[.digits] with at most `scale` decimals and 15 digits in all
//   date      YYYY-MM-DD, a real day, years 1000-9999
//   time      HH:MM[:SS[.f{1,6}]], 00:00 to 23:59:59.999999
//   timestamp, timestamptz  YYYY-MM-DDTHH:MM:SS[.f{1,6}]Z, a real instant, years 1000-9999
//   uuid      the hyphenated 8-4-4-4-12 hex form, any case
//   string    a JSON string
//   boolean   true, false, or a string true|false|1|0 in any case
//   binary    a JSON string of padded base64
//   struct, list, map  null only
//   ""        null, for any primitive column but a string
//   null or missing  null, unless the column is required
// records = true makes a line that is not an object fail (without it, a
// one-column read takes a bare value as that column's). A line longer than
// read_json's maximum_object_size (16 MiB, the send
// route's largest body) fails the statement too.
import { requirePrimitive, type StructField } from '@floe/iceberg';
import { duckType } from './columns.js';
import { ident, literal } from './sql.js';

/** The text read_json is told to give a column as. */
type ReadAs = 'VARCHAR' | 'JSON';

/** A column's reading: its read_json type, and its value as SQL over `v` (the column's text), failing the statement where uncertain. */
interface ColumnReading {
  readAs: ReadAs;
  value: (v: string) => string;
}

/** The message a value this file does not read fails its statement with. */
export const UNREAD = 'floe: value left to the JavaScript reading';
const unread = `error(${literal(UNREAD)})`;

const matches = (v: string, pattern: string): string => `regexp_full_match(${v}, ${literal(pattern)})`;
const DIGITS_18 = '-?(0|[1-9][0-9]{0,17})';
const DIGITS_10 = '-?(0|[1-9][0-9]{0,9})';
const NUMBER = '-?(0|[1-9][0-9]{0,99})(\\.[0-9]+)?([eE][+-]?[0-9]{1,2})?';
const DATE = '[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}';
const CLOCK = '([01][0-9]|2[0-3]):[0-5][0-9]';
const TIME = `${CLOCK}(:[0-5][0-9](\\.[0-9]{1,6})?)?`;
const INSTANT = `${DATE}T${CLOCK}:[0-5][0-9](\\.[0-9]{1,6})?Z`;
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const BASE64 = '"([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"';

/** `value` where `fits`, else the statement fails. */
const when = (fits: string, value: string): string => `CASE WHEN ${fits} THEN ${value} ELSE ${unread} END`;
/** A cast that must succeed: where DuckDB cannot make the value (Feb 30), the JavaScript reading decides. */
const sureCast = (v: string, type: string): string => `coalesce(TRY_CAST(${v} AS ${type}), ${unread})`;
/** A JSON string's text: sliced when it has no escapes, else unescaped by the JSON reader. */
const jsonText = (v: string): string => `CASE WHEN contains(${v}, '\\') THEN ${v}->>'$' ELSE ${v}[2:-2] END`;
const isJsonString = (v: string): string => `starts_with(${v}, '"')`;

function primitiveReading(kind: string, precision?: number, scale?: number): ColumnReading | undefined {
  switch (kind) {
    case 'long': return { readAs: 'VARCHAR', value: (v) => when(matches(v, DIGITS_18), `${v}::BIGINT`) };
    case 'int': return { readAs: 'VARCHAR', value: (v) => when(matches(v, DIGITS_10), sureCast(v, 'INTEGER')) };
    case 'double': return { readAs: 'VARCHAR', value: (v) => when(matches(v, NUMBER), `${v}::DOUBLE`) };
    case 'float': return {
      readAs: 'VARCHAR',
      value: (v) => when(`${matches(v, NUMBER)} AND abs(${v}::DOUBLE) <= 3.4028234663852886e38`, `${v}::DOUBLE::FLOAT`),
    };
    case 'decimal': {
      const s = scale!;
      const whole = Math.min(precision! - s, 15 - s);
      if (whole < 1) return undefined;
      const pattern = `-?(0|[1-9][0-9]{0,${whole - 1}})${s > 0 ? `(\\.[0-9]{1,${s}})?` : ''}`;
      return { readAs: 'VARCHAR', value: (v) => when(matches(v, pattern), `${v}::DECIMAL(${precision},${s})`) };
    }
    case 'date': return { readAs: 'VARCHAR', value: (v) => when(matches(v, DATE), sureCast(v, 'DATE')) };
    case 'time': return { readAs: 'VARCHAR', value: (v) => when(matches(v, TIME), sureCast(v, 'TIME')) };
    case 'timestamptz': return { readAs: 'VARCHAR', value: (v) => when(matches(v, INSTANT), sureCast(v, 'TIMESTAMPTZ')) };
    case 'timestamp': return { readAs: 'VARCHAR', value: (v) => when(matches(v, INSTANT), `${sureCast(v, 'TIMESTAMPTZ')}::TIMESTAMP`) };
    case 'uuid': return { readAs: 'VARCHAR', value: (v) => when(matches(v, UUID), `${v}::UUID`) };
    case 'string': return { readAs: 'JSON', value: (v) => when(isJsonString(v), jsonText(v)) };
    case 'boolean': return {
      readAs: 'JSON',
      value: (v) => `CASE WHEN ${v} = 'true' THEN true WHEN ${v} = 'false' THEN false
        WHEN ${isJsonString(v)} AND lower(${jsonText(v)}) IN ('true', '1') THEN true
        WHEN ${isJsonString(v)} AND lower(${jsonText(v)}) IN ('false', '0') THEN false ELSE ${unread} END`,
    };
    case 'binary': return { readAs: 'JSON', value: (v) => when(matches(v, BASE64), `from_base64(${v}[2:-2])`) };
    default: return undefined;
  }
}

/** A column's reading (one that reads no non-null value where its type has none here). */
function readingOf(f: StructField): ColumnReading & { emptyIsNull: boolean } {
  if (typeof f.type !== 'string') return { readAs: 'JSON', value: () => unread, emptyIsNull: false };
  const p = requirePrimitive(f.type);
  const reading = primitiveReading(p.kind, p.precision, p.scale) ?? { readAs: 'VARCHAR' as const, value: () => unread };
  return { ...reading, emptyIsNull: p.kind !== 'string' };
}

/** The column names a file's rows cannot use here: read_json's own (virtual) columns. */
const READER_COLUMNS = new Set(['filename', 'file_index']);

/** Why these fields cannot be read here (the caller reads every file the JavaScript way), or undefined. */
export function unreadableFields(fields: readonly StructField[], stamped: string | undefined): string | undefined {
  if (!fields.some((f) => f.name !== stamped)) return 'there is no column to read';
  const seen = new Set<string>();
  for (const f of fields) {
    const folded = f.name.toLowerCase();
    if (READER_COLUMNS.has(folded)) return `a column named ${f.name} clashes with the JSON reader's own`;
    // DuckDB's column names are case-insensitive; JSON keys and Iceberg names are not.
    if (seen.has(folded)) return `columns ${f.name} and another differ only in case`;
    seen.add(folded);
  }
  return undefined;
}

export interface NdjsonFile {
  localPath: string;
  /** The value of the stamped column for this file's rows, epoch microseconds. */
  stampMicros: bigint;
}

/**
 * The SELECT that reads `files` onto `fields` (in order), failing where a
 * value is not read here. `stamped` names a timestamptz field filled with
 * each file's stamp whatever its lines say (the sink's `__ingest_ts`).
 */
export function ndjsonSelect(fields: readonly StructField[], files: readonly NdjsonFile[], stamped: string | undefined): string {
  const columns = fields.filter((f) => f.name !== stamped).map((f) => ({ f, reading: readingOf(f) }));
  const readings = new Map(columns.map((c) => [c.f, c.reading]));
  const selects = fields.map((f) => {
    const reading = readings.get(f);
    if (!reading) {
      const stamps = `[${files.map((file) => file.stampMicros.toString()).join(', ')}]::BIGINT[]`;
      return `make_timestamp((${stamps})[file_index::BIGINT + 1])::TIMESTAMPTZ AS ${ident(f.name)}`;
    }
    const v = ident(f.name);
    const empty = reading.readAs === 'VARCHAR' ? "''" : `'""'`;
    const absent = reading.emptyIsNull ? `${v} IS NULL OR ${v} = ${empty}` : `${v} IS NULL`;
    const ifAbsent = f.required ? unread : 'NULL';
    return `CASE WHEN ${absent} THEN ${ifAbsent} ELSE ${reading.value(v)} END::${duckType(f.type)} AS ${v}`;
  });
  const spec = `{${columns.map(({ f, reading }) => `${literal(f.name)}: ${literal(reading.readAs)}`).join(', ')}}`;
  const paths = `[${files.map((file) => literal(file.localPath)).join(', ')}]`;
  return `SELECT ${selects.join(',\n  ')}
FROM read_json(${paths}, format = 'newline_delimited', records = true, columns = ${spec})`;
}
