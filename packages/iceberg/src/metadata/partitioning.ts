// Partition transforms, and the checks Java applies when a partition spec or sort order
// is bound to a schema (PartitionSpec/SortOrder.checkCompatibility and their builders).

import { invalid } from './errors';
import type { PartitionField, PartitionSpec, Schema, SortField, SortOrder } from './model';
import { indexById, primitiveOf, type SchemaNode } from './schema';
import type { PrimitiveKind } from './types';

export type TransformName =
  | 'identity' | 'bucket' | 'truncate' | 'year' | 'month' | 'day' | 'hour' | 'void' | 'unknown';

export interface ParsedTransform {
  name: TransformName;
  /** N of bucket[N], W of truncate[W] */
  param?: number;
  /** The text as written, for error messages and unknown transforms. */
  text: string;
}

const PARAMETERISED = /^(bucket|truncate)\[(\d+)\]$/;

export function parseTransform(text: string): ParsedTransform {
  const t = text.trim().toLowerCase();
  if (['identity', 'year', 'month', 'day', 'hour', 'void'].includes(t)) return { name: t as TransformName, text };
  const m = PARAMETERISED.exec(t);
  if (m) return { name: m[1] as TransformName, param: Number(m[2]), text };
  // v3 readers must tolerate transforms they do not know; they are kept as written.
  return { name: 'unknown', text };
}

const TIMESTAMPS: PrimitiveKind[] = ['timestamp', 'timestamptz', 'timestamp_ns', 'timestamptz_ns'];
const APPLICABLE: Record<Exclude<TransformName, 'identity' | 'void' | 'unknown'>, PrimitiveKind[]> = {
  bucket: ['int', 'long', 'decimal', 'date', 'time', ...TIMESTAMPS, 'string', 'uuid', 'fixed', 'binary'],
  truncate: ['int', 'long', 'decimal', 'string', 'binary'],
  year: ['date', ...TIMESTAMPS],
  month: ['date', ...TIMESTAMPS],
  day: ['date', ...TIMESTAMPS],
  hour: TIMESTAMPS,
};
// identity cannot produce a comparable partition value from these
const NOT_IDENTITY: PrimitiveKind[] = ['variant', 'geometry', 'geography'];

function canTransform(t: ParsedTransform, kind: PrimitiveKind): boolean {
  switch (t.name) {
    case 'void':
    case 'unknown':
      return true;
    case 'identity':
      return !NOT_IDENTITY.includes(kind);
    default:
      if ((t.name === 'bucket' || t.name === 'truncate') && !(t.param! > 0)) return false;
      return APPLICABLE[t.name].includes(kind);
  }
}

export const sourceIdsOf = (f: PartitionField | SortField): number[] =>
  f['source-ids'] && f['source-ids'].length > 0 ? f['source-ids'] : [f['source-id']!];

function checkSource(
  index: Map<number, SchemaNode>,
  sourceId: number,
  transform: ParsedTransform,
  what: string,
  problems: string[],
): SchemaNode | undefined {
  const node = index.get(sourceId);
  if (!node) {
    // Java keeps void fields of dropped columns (v1) readable.
    if (transform.name !== 'void') problems.push(`${what}: cannot find source column ${sourceId}`);
    return undefined;
  }
  const prim = primitiveOf(node.type);
  if (!prim) problems.push(`${what}: source column ${node.name} is not a primitive type`);
  else if (!canTransform(transform, prim.kind)) {
    problems.push(`${what}: invalid source type ${String(node.type)} for transform ${transform.text}`);
  }
  if (node.inCollection) problems.push(`${what}: source column ${node.name} cannot be nested in a list or map`);
  return node;
}

/**
 * Checks a partition spec against the schema it is bound to: sources exist and suit the
 * transform (always; Java `checkCompatibility`) and, when `strict` (new specs, Java's
 * spec builder), names are unique and do not shadow another column and v1 field ids
 * are sequential from 1000 (the only ids v1 readers can infer).
 */
export function validatePartitionSpec(
  spec: PartitionSpec,
  schema: Schema,
  formatVersion: number,
  { strict = true }: { strict?: boolean } = {},
): void {
  const index = indexById(schema);
  const byName = new Map<string, SchemaNode>();
  for (const node of index.values()) byName.set(node.name, node);
  const problems: string[] = [];
  const names = new Set<string>();
  const fieldIds = new Set<number>();

  spec.fields.forEach((f, i) => {
    const transform = parseTransform(f.transform);
    const what = `partition field ${JSON.stringify(f.name)}`;
    const sources = sourceIdsOf(f).map((s) => checkSource(index, s, transform, what, problems));
    if (!strict) return;
    if (f.name.length === 0) problems.push(`partition field ${i} has an empty name`);
    if (names.has(f.name)) problems.push(`${what}: duplicate partition field name`);
    names.add(f.name);
    const id = f['field-id'];
    if (id !== undefined) {
      if (fieldIds.has(id)) problems.push(`${what}: duplicate partition field id ${id}`);
      fieldIds.add(id);
      if (formatVersion === 1 && id !== 1000 + i) {
        problems.push(`${what}: v1 requires sequential partition field ids from 1000, got ${id}`);
      }
    }
    // A partition name may equal a column name only for identity (or void) of that column.
    const clash = byName.get(f.name);
    if (clash && !(['identity', 'void'].includes(transform.name) && sources.some((s) => s?.id === clash.id))) {
      problems.push(`${what}: name conflicts with schema column ${clash.name}`);
    }
  });

  if (problems.length > 0) invalid(`Invalid partition spec: ${problems.join('; ')}`);
}

export function validateSortOrder(order: SortOrder, schema: Schema): void {
  const index = indexById(schema);
  const problems: string[] = [];
  order.fields.forEach((f, i) => {
    const transform = parseTransform(f.transform);
    for (const s of sourceIdsOf(f)) checkSource(index, s, transform, `sort field ${i}`, problems);
  });
  if (problems.length > 0) invalid(`Invalid sort order: ${problems.join('; ')}`);
}

const norm = (t: string) => t.trim().toLowerCase();

/** Java `PartitionSpec.compatibleWith`: same sources, transforms and names in order. */
export function sameSpecFields(a: PartitionSpec, b: PartitionSpec): boolean {
  return (
    a.fields.length === b.fields.length &&
    a.fields.every((f, i) => {
      const g = b.fields[i];
      return sourceIdsOf(f).join() === sourceIdsOf(g).join() && norm(f.transform) === norm(g.transform) && f.name === g.name;
    })
  );
}

/** Java `SortOrder.sameOrder`: same fields in order. */
export function sameOrderFields(a: SortOrder, b: SortOrder): boolean {
  return (
    a.fields.length === b.fields.length &&
    a.fields.every((f, i) => {
      const g = b.fields[i];
      return (
        sourceIdsOf(f).join() === sourceIdsOf(g).join() &&
        norm(f.transform) === norm(g.transform) &&
        f.direction === g.direction &&
        f['null-order'] === g['null-order']
      );
    })
  );
}

/** Highest partition field id in a spec, 999 for an unpartitioned one (Java convention). */
export function lastAssignedFieldId(spec: PartitionSpec): number {
  return spec.fields.reduce((max, f) => Math.max(max, f['field-id'] ?? 0), 999);
}
