// Iceberg primitive type strings (spec Appendix C): recognising them and knowing which
// format version introduced them. Kept apart from the zod model so the schema walkers
// and the model can both use it without importing each other.

export type PrimitiveKind =
  | 'unknown'
  | 'boolean'
  | 'int'
  | 'long'
  | 'float'
  | 'double'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'timestamp_ns'
  | 'timestamptz_ns'
  | 'string'
  | 'uuid'
  | 'binary'
  | 'variant'
  | 'fixed'
  | 'decimal'
  | 'geometry'
  | 'geography';

export interface ParsedPrimitive {
  kind: PrimitiveKind;
  /** fixed[L] */
  length?: number;
  /** decimal(P,S) */
  precision?: number;
  scale?: number;
  /** geometry(C) / geography(C, A) */
  crs?: string;
  algorithm?: string;
}

const SIMPLE = new Set<PrimitiveKind>([
  'unknown', 'boolean', 'int', 'long', 'float', 'double', 'date', 'time', 'timestamp',
  'timestamptz', 'timestamp_ns', 'timestamptz_ns', 'string', 'uuid', 'binary', 'variant',
]);

// Readers must accept optional whitespace around parameters (spec Appendix C).
const FIXED = /^fixed\s*\[\s*(\d+)\s*\]$/;
const DECIMAL = /^decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$/;
const GEOMETRY = /^geometry\s*(?:\(\s*([^,()]*?)\s*\))?$/;
const GEOGRAPHY = /^geography\s*(?:\(\s*([^,()]*?)\s*(?:,\s*([A-Za-z]+)\s*)?\))?$/;
const EDGE_ALGORITHMS = new Set(['spherical', 'vincenty', 'thomas', 'andoyer', 'karney']);

/** Parses a primitive type string, or returns null when it is not one the spec defines. */
export function parsePrimitiveType(text: string): ParsedPrimitive | null {
  const t = text.trim().toLowerCase();
  if (SIMPLE.has(t as PrimitiveKind)) return { kind: t as PrimitiveKind };
  let m = FIXED.exec(t);
  if (m) return { kind: 'fixed', length: Number(m[1]) };
  m = DECIMAL.exec(t);
  if (m) {
    const precision = Number(m[1]);
    const scale = Number(m[2]);
    if (precision < 1 || precision > 38 || scale > precision) return null;
    return { kind: 'decimal', precision, scale };
  }
  // CRS strings are case-sensitive identifiers, so match them on the untouched text.
  const raw = text.trim();
  m = GEOMETRY.exec(raw);
  if (m) return { kind: 'geometry', ...(m[1] ? { crs: m[1] } : {}) };
  m = GEOGRAPHY.exec(raw);
  if (m) {
    const algorithm = m[2]?.toLowerCase();
    if (algorithm !== undefined && !EDGE_ALGORITHMS.has(algorithm)) return null;
    return { kind: 'geography', ...(m[1] ? { crs: m[1] } : {}), ...(algorithm ? { algorithm } : {}) };
  }
  return null;
}

/** Types that only exist from format v3 on (spec "Added by version"). */
export const V3_KINDS = new Set<PrimitiveKind>([
  'unknown', 'timestamp_ns', 'timestamptz_ns', 'variant', 'geometry', 'geography',
]);

/** Types whose columns must default to null (spec "Default values"). */
export const NULL_DEFAULT_KINDS = new Set<PrimitiveKind>(['unknown', 'variant', 'geometry', 'geography']);
