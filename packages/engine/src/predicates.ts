// What a planner may prune by (issue 35: "partition and column-stat pruning
// for simple predicates"): from the parsed tree of a caller's statement
// (json_serialize_sql), the comparisons of one column with a constant that
// every row read of a table must pass. Found only where that is certain:
// the statement's top-level SELECT reads exactly one table, that table is
// named nowhere else in the statement (a second reference would read rows
// this WHERE does not filter), and the comparison is a conjunct of its WHERE.
// Constants are kept exact or not at all: integers beyond 2^53 (which the
// tree's JSON cannot carry exactly), decimals and casts other than a date
// string are left to the engine.

export type PredicateOp = '=' | '<' | '<=' | '>' | '>=';

export interface ColumnPredicate {
  /** The column as written (a planner matches it to the schema). */
  column: string;
  op: PredicateOp;
  value: { kind: 'number'; value: number } | { kind: 'string'; value: string } | { kind: 'date'; value: string };
}

type Node = Record<string, unknown>;

const OPS: Record<string, PredicateOp> = {
  COMPARE_EQUAL: '=', COMPARE_LESSTHAN: '<', COMPARE_LESSTHANOREQUALTO: '<=', COMPARE_GREATERTHAN: '>', COMPARE_GREATERTHANOREQUALTO: '>=',
};
/** The same comparison with its sides swapped (`3 > id` is `id < 3`). */
const FLIPPED: Record<PredicateOp, PredicateOp> = { '=': '=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
const INTEGERS = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT']);
const FLOATS = new Set(['FLOAT', 'DOUBLE']);

export function prunablePredicates(statement: unknown): Record<string, ColumnPredicate[]> {
  const node = (statement as Node | undefined)?.node as Node | undefined;
  if (!node || node.type !== 'SELECT_NODE') return {};
  const from = node.from_table as Node | undefined;
  if (!from || from.type !== 'BASE_TABLE' || !from.schema_name || from.catalog_name) return {};
  const name = `${String(from.schema_name)}.${String(from.table_name)}`;
  if (countTableRefs(statement, String(from.schema_name), String(from.table_name)) !== 1) return {};
  const qualifiers = new Set([String(from.table_name).toLowerCase(), ...(from.alias ? [String(from.alias).toLowerCase()] : [])]);
  const found = conjuncts(node.where_clause as Node | null | undefined).flatMap((c) => {
    const p = comparison(c, qualifiers);
    return p ? [p] : [];
  });
  return found.length ? { [name]: found } : {};
}

function countTableRefs(v: unknown, schema: string, table: string): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + countTableRefs(x, schema, table), 0);
  if (!v || typeof v !== 'object') return 0;
  const n = v as Node;
  const here = n.type === 'BASE_TABLE' && String(n.schema_name).toLowerCase() === schema.toLowerCase() && String(n.table_name).toLowerCase() === table.toLowerCase() ? 1 : 0;
  return here + Object.values(n).reduce((sum: number, x) => sum + countTableRefs(x, schema, table), 0);
}

function conjuncts(e: Node | null | undefined): Node[] {
  if (!e) return [];
  if (e.type === 'CONJUNCTION_AND') return (e.children as Node[]).flatMap(conjuncts);
  return [e];
}

function comparison(e: Node, qualifiers: Set<string>): ColumnPredicate | null {
  const op = OPS[String(e.type)];
  if (e.class !== 'COMPARISON' || !op) return null;
  const left = e.left as Node;
  const right = e.right as Node;
  const column = columnOf(left, qualifiers);
  if (column) {
    const value = constantOf(right);
    return value ? { column, op, value } : null;
  }
  const swapped = columnOf(right, qualifiers);
  const value = constantOf(left);
  return swapped && value ? { column: swapped, op: FLIPPED[op], value } : null;
}

function columnOf(e: Node, qualifiers: Set<string>): string | null {
  if (e.class !== 'COLUMN_REF') return null;
  const names = e.column_names as string[];
  if (names.length === 1) return names[0];
  if (names.length === 2 && qualifiers.has(names[0].toLowerCase())) return names[1];
  return null;
}

function constantOf(e: Node): ColumnPredicate['value'] | null {
  if (e.class === 'CAST' && (e.cast_type as Node | undefined)?.id === 'DATE') {
    const inner = constantOf(e.child as Node);
    return inner?.kind === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(inner.value) ? { kind: 'date', value: inner.value } : null;
  }
  if (e.class !== 'CONSTANT') return null;
  const v = e.value as { type?: { id?: string }; is_null?: boolean; value?: unknown } | undefined;
  if (!v || v.is_null) return null;
  const id = v.type?.id ?? '';
  if (INTEGERS.has(id) && typeof v.value === 'number' && Number.isSafeInteger(v.value)) return { kind: 'number', value: v.value };
  if (FLOATS.has(id) && typeof v.value === 'number' && Number.isFinite(v.value)) return { kind: 'number', value: v.value };
  if (id === 'VARCHAR' && typeof v.value === 'string') return { kind: 'string', value: v.value };
  return null;
}
