import type { IcebergType, Schema } from '../metadata/model.js';
import { schemaNodes, type SchemaNode } from '../metadata/schema.js';
import { parsePrimitiveType } from '../metadata/types.js';
import { BOUND_KINDS, type Bound, type BoundKind, type BoundValue } from './prune.js';

// A scan's filter as the REST catalog's planning request carries it (the
// OpenAPI document's `Predicate`: and/or/not, unary, comparison and set
// predicates over references, with the deprecated `term`/`value` forms and
// the `true`/`false` objects), checked and bound to a schema: every field it
// names must exist (matched case-insensitively when the request says so), and
// a malformed node is refused with what is wrong. What planning may prune by
// is taken from it where that is certain: the comparisons and IN lists of one
// column with constants that are conjuncts of the whole filter, and a filter
// that is `false`. The rest (function applications, transforms, NOT, OR) is
// left to the engine, which applies the whole filter to the rows it reads.

/** A request's filter, select or stats fields that cannot be used: 400 in the catalog. */
export class ScanInputError extends Error {
  override name = 'ScanInputError';
}

/** Nesting past this is refused rather than walked. */
const MAX_DEPTH = 64;

type Json = unknown;
type Obj = Record<string, Json>;

const COMPARISONS = new Set(['lt', 'lt-eq', 'gt', 'gt-eq', 'eq', 'not-eq', 'starts-with', 'not-starts-with']);
const UNARY = new Set(['is-null', 'not-null', 'is-nan', 'not-nan']);
const SETS = new Set(['in', 'not-in']);
const PRUNING_OPS: Record<string, '=' | '<' | '<=' | '>' | '>='> = { eq: '=', lt: '<', 'lt-eq': '<=', gt: '>', 'gt-eq': '>=' };
/** The same comparison with its sides swapped (`3 > id` is `id < 3`). */
const FLIPPED: Record<string, string> = { eq: 'eq', 'not-eq': 'not-eq', lt: 'gt', 'lt-eq': 'gt-eq', gt: 'lt', 'gt-eq': 'lt-eq' };

/** Resolves full field names (`a.b`, `m.key`, `l.element`) and ids against one schema. */
export class FieldResolver {
  private readonly nodes: SchemaNode[];
  constructor(schema: Schema, private readonly caseSensitive: boolean) {
    this.nodes = schemaNodes(schema);
  }

  byName(name: string): SchemaNode {
    const exact = this.nodes.filter((n) => n.name === name);
    if (exact.length === 1) return exact[0];
    if (!this.caseSensitive) {
      const loose = this.nodes.filter((n) => n.name.toLowerCase() === name.toLowerCase());
      if (loose.length === 1) return loose[0];
      if (loose.length > 1) throw new ScanInputError(`Field name ${JSON.stringify(name)} matches ${loose.length} fields when case is ignored`);
    }
    throw new ScanInputError(`Cannot find field ${JSON.stringify(name)} in the scan's schema`);
  }

  byId(id: number): SchemaNode {
    const node = this.nodes.find((n) => n.id === id);
    if (!node) throw new ScanInputError(`Cannot find field id ${id} in the scan's schema`);
    return node;
  }
}

/** A field a predicate compares, when it is a plain reference (null for a transform or a function). */
type Operand = { field: SchemaNode } | { literal: Json } | { opaque: true };

export interface BoundFilter {
  /** What every row read must pass, for pruning (scan/prune.ts). */
  bounds: Bound[];
  /** The filter is `false`: no file is read. */
  matchesNothing: boolean;
}

const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks `filter` against the schema and takes what pruning can use from it. */
export function bindFilter(filter: Json, fields: FieldResolver): BoundFilter {
  const out: BoundFilter = { bounds: [], matchesNothing: false };
  check(filter, fields, 0);
  for (const c of conjuncts(filter)) {
    if (c === false || (isObj(c) && c.type === 'false')) out.matchesNothing = true;
    const b = isObj(c) ? boundOf(c, fields) : null;
    if (b) out.bounds.push(b);
  }
  return out;
}

function conjuncts(p: Json): Json[] {
  return isObj(p) && p.type === 'and' ? [...conjuncts(p.left), ...conjuncts(p.right)] : [p];
}

function check(p: Json, fields: FieldResolver, depth: number): void {
  if (depth > MAX_DEPTH) throw new ScanInputError(`The filter is nested more than ${MAX_DEPTH} levels deep`);
  if (typeof p === 'boolean') return;
  if (!isObj(p) || typeof p.type !== 'string') throw new ScanInputError('Each filter expression is a boolean or an object with a string `type`');
  const t = p.type;
  if (t === 'true' || t === 'false') return;
  if (t === 'and' || t === 'or') {
    if (!('left' in p) || !('right' in p)) throw new ScanInputError(`An \`${t}\` expression needs \`left\` and \`right\``);
    check(p.left, fields, depth + 1);
    check(p.right, fields, depth + 1);
  } else if (t === 'not') {
    if (!('child' in p)) throw new ScanInputError('A `not` expression needs `child`');
    check(p.child, fields, depth + 1);
  } else if (UNARY.has(t)) {
    operand(p.child ?? p.term, fields, depth, t);
  } else if (COMPARISONS.has(t)) {
    operand(p.left ?? p.term, fields, depth, t);
    operand(p.right ?? p.value, fields, depth, t, true);
  } else if (SETS.has(t)) {
    operand(p.child ?? p.term, fields, depth, t);
    literals(p.values, t);
  } else {
    throw new ScanInputError(`Unknown filter expression type ${JSON.stringify(t)}`);
  }
}

/** A value expression (reference, literal, function application) or a deprecated term, checked. */
function operand(v: Json, fields: FieldResolver, depth: number, op: string, stringIsLiteral = false): Operand {
  if (depth > MAX_DEPTH) throw new ScanInputError(`The filter is nested more than ${MAX_DEPTH} levels deep`);
  if (v === undefined) throw new ScanInputError(`A \`${op}\` expression is missing its operand`);
  if (typeof v === 'string' && !stringIsLiteral) return { field: fields.byName(v) };
  if (isObj(v) && v.type === 'reference') {
    if (typeof v.name === 'string') return { field: fields.byName(v.name) };
    if (Number.isInteger(v.id)) return { field: fields.byId(v.id as number) };
    throw new ScanInputError('A reference names a field by `name` (string) or `id` (integer)');
  }
  if (isObj(v) && v.type === 'transform') {
    if (typeof v.transform !== 'string' || typeof v.term !== 'string') throw new ScanInputError('A transform term needs `transform` and `term` (strings)');
    fields.byName(v.term);
    return { opaque: true };
  }
  if (isObj(v) && v.type === 'apply') {
    if (!Array.isArray(v.arguments)) throw new ScanInputError('A function application needs `arguments` (an array)');
    for (const a of v.arguments) {
      // An argument is a value expression or a predicate.
      if (isObj(a) && typeof a.type === 'string' && !['reference', 'literal', 'apply', 'transform'].includes(a.type)) check(a, fields, depth + 1);
      else operand(a, fields, depth + 1, 'apply', true);
    }
    return { opaque: true };
  }
  if (isObj(v) && v.type === 'literal') {
    if (!('value' in v)) throw new ScanInputError('A literal object needs `value`');
    return { literal: v.value };
  }
  // A bare string is a field name where a term may stand (the deprecated form), a literal elsewhere.
  if (v === null || ['number', 'bigint', 'boolean'].includes(typeof v) || (stringIsLiteral && typeof v === 'string')) return { literal: v };
  throw new ScanInputError(`A \`${op}\` expression has an operand that is not a reference, literal or function application`);
}

function literals(v: Json, op: string): Json[] {
  if (Array.isArray(v)) return v.map((x) => (isObj(x) && x.type === 'literal' ? x.value : x));
  if (isObj(v) && v.type === 'literals' && Array.isArray(v.values)) return v.values;
  throw new ScanInputError(`An \`${op}\` expression needs \`values\`: an array of literals`);
}

/** A conjunct pruning can use: `field op literal` (either way round) or `field IN (literals)` on a column of an ordered type. */
function boundOf(p: Obj, fields: FieldResolver): Bound | null {
  const t = p.type as string;
  if (SETS.has(t)) {
    if (t !== 'in') return null;
    const target = operand(p.child ?? p.term, fields, 0, t);
    const kind = 'field' in target ? prunableKind(target.field) : null;
    if (!kind || !('field' in target)) return null;
    const values = literals(p.values, t).map((v) => internalValue(kind, v));
    if (!values.length || values.some((v) => v === null)) return null;
    return { fieldId: target.field.id, kind, op: 'in', values: values as BoundValue[] };
  }
  if (!(t in FLIPPED)) return null;
  let left = operand(p.left ?? p.term, fields, 0, t);
  let right = operand(p.right ?? p.value, fields, 0, t, true);
  let op = t;
  if ('literal' in left && 'field' in right) {
    [left, right] = [right, left];
    op = FLIPPED[t];
  }
  if (!('field' in left) || !('literal' in right) || !(op in PRUNING_OPS)) return null;
  const kind = prunableKind(left.field);
  const value = kind ? internalValue(kind, right.literal) : null;
  return kind && value !== null ? { fieldId: left.field.id, kind, op: PRUNING_OPS[op], value } : null;
}

/** A field pruning can compare: primitive, of an ordered kind, and not inside a list or map (whose bounds mix elements). */
function prunableKind(node: SchemaNode): BoundKind | null {
  if (node.inCollection || typeof node.type !== 'string') return null;
  const kind = parsePrimitiveType(node.type as Extract<IcebergType, string>)?.kind;
  return kind && BOUND_KINDS.has(kind) ? (kind as BoundKind) : null;
}

/** A literal in the order of `kind`, or null when it is not certainly one (then nothing is pruned by it). */
function internalValue(kind: BoundKind, v: Json): BoundValue | null {
  // The catalog's parser hands integers past 2^53 over as bigints.
  switch (kind) {
    case 'string': return typeof v === 'string' ? v : null;
    case 'date': {
      if (typeof v === 'number' && Number.isInteger(v)) return v;
      if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
      const ms = Date.parse(`${v}T00:00:00Z`);
      return Number.isNaN(ms) ? null : ms / 86_400_000;
    }
    case 'long': {
      if (typeof v === 'bigint') return v;
      if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : null;
      return typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : null;
    }
    case 'int': return typeof v === 'number' && Number.isInteger(v) ? v : null;
    // A float column's bounds are 32-bit: the literal is compared as the float it binds to.
    case 'float': return typeof v === 'number' && !Number.isNaN(v) ? Math.fround(v) : null;
    case 'double': return typeof v === 'number' && !Number.isNaN(v) ? v : null;
  }
}
