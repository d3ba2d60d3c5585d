// The query route's statement (issue 35): a caller's SQL, read-only, over the
// tables a planner has laid out as local Parquet files, in a sandbox of its
// own. Two steps, so the caller can check grants between them:
//
// 1. `readOnlyStatement(sql)` parses the text with DuckDB's own parser
//    (json_serialize_sql, which serialises SELECT statements only) and
//    answers the one statement's canonical text (json_deserialize_sql: what
//    runs is exactly what was parsed, never the caller's text) and the
//    tables it names, `namespace.table`. Refused, as QueryRefused: anything
//    but exactly one SELECT (COPY, ATTACH, INSTALL, LOAD, SET, PRAGMA, a
//    second statement after `;`), a table named without its namespace or
//    with a catalog, and every table function but a few that read nothing
//    (range, generate_series, unnest): read_parquet, read_csv, read_text,
//    glob and the rest are not for callers.
// 2. `runReadOnlyStatement` runs it in a DuckDB instance made for this
//    statement alone: its only readable directory is the statement's own
//    (where the planner put the tables' files), external access off, no
//    extension loadable, memory and threads capped, configuration locked,
//    then a view per table under its namespace: its files read by field id
//    under the table's schema, in parts with the deletes that apply to each
//    anti-joined (each part's loaded under a prefix of its own), or the
//    caller's SELECT. The statement is interrupted at its
//    timeout (QueryTimedOut) and its answer is cut at a row and a byte cap
//    (`truncated`); a statement that needs more memory than its cap is
//    refused (QueryTooLarge), never the process. Values come as JSON-safe
//    values (DuckDB's JSON conversion: 64-bit integers and decimals as
//    strings, dates and timestamps as ISO text).
//
// The parse is a convenience for clear refusals and for knowing what to
// plan; the sandbox of step 2 is what holds if the parse let something by.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Schema } from '@floe/iceberg';
import { duckType, readFields, readName, readSchemaParam, writtenFields } from './columns.js';
import { deleteJoins, loadDeletes, type EqualityDeleteInput, type PositionDeleteInput } from './deletes.js';
import { lockedDownInstance } from './lockdown.js';
import { prunablePredicates, type ColumnPredicate } from './predicates.js';
import type { DataFileInput } from './rewrite.js';
import { ident, literal, pathList } from './sql.js';

/** A statement refused before it ran: not a single read-only SELECT over namespace.table names. */
export class QueryRefused extends Error {
  override readonly name = 'QueryRefused';
}

/** The statement ran past its timeout and was interrupted. */
export class QueryTimedOut extends Error {
  override readonly name = 'QueryTimedOut';
}

/** The statement needs more memory than a statement may use. */
export class QueryTooLarge extends Error {
  override readonly name = 'QueryTooLarge';
}

export interface TableName {
  namespace: string;
  table: string;
}

export interface ReadOnlyStatement {
  /** The statement as DuckDB's parser understood it, printed back: what runs. */
  sql: string;
  /** The tables it reads, each once, in the order first named. */
  tables: TableName[];
  /**
   * Per table (`namespace.table`), comparisons of one of its columns with a
   * constant that every row the statement reads of it must pass: a planner
   * may leave out files whose bounds rule them out. Found only where that is
   * certain (predicates.ts); absent tables have none.
   */
  predicates: Record<string, ColumnPredicate[]>;
}

/** Table functions that read no file, URL or setting. */
const SAFE_TABLE_FUNCTIONS = new Set(['range', 'generate_series', 'unnest']);

/** Scalar functions that read the instance's settings, its environment or its secrets: nothing a caller needs, and paths of the worker's. */
const refusedScalar = (name: string) => ['current_setting', 'getenv', 'which_secret'].includes(name) || name.startsWith('duckdb_') || name.startsWith('pragma_');

let parser: Promise<DuckDBConnection> | null = null;

/** A connection of an instance that holds no data and reads nothing: it only parses. */
function parsingConnection(): Promise<DuckDBConnection> {
  parser ??= (async () => {
    const instance = await DuckDBInstance.create(':memory:', {
      autoinstall_known_extensions: 'false', autoload_known_extensions: 'false', enable_external_access: 'false', threads: '1', memory_limit: '64MB',
    });
    return instance.connect();
  })();
  return parser;
}

/** Step 1: the one read-only statement `sql` is, and the tables it names; QueryRefused otherwise. */
export async function readOnlyStatement(sql: string): Promise<ReadOnlyStatement> {
  if (sql.includes('\0')) throw new QueryRefused('the statement holds a NUL character');
  const c = await parsingConnection();
  const serialized = (await c.runAndReadAll(`SELECT json_serialize_sql(${literal(sql)})::VARCHAR`)).getRows()[0][0] as string;
  // Read here for its tables; printed back from the text DuckDB wrote (JavaScript numbers would round its 64-bit ones).
  const tree = JSON.parse(serialized) as SerializedSql;
  if (tree.error) {
    throw new QueryRefused(/Only SELECT/.test(tree.error_message ?? '')
      ? 'only a SELECT statement is run here (no COPY, ATTACH, INSTALL, LOAD, SET, PRAGMA, or changes: tables change through the catalog)'
      : `the statement does not parse: ${tree.error_message ?? tree.error_type ?? 'a syntax error'}`);
  }
  if (tree.statements.length !== 1) throw new QueryRefused(`send one statement; this is ${tree.statements.length}`);
  const tables = tablesOf(tree.statements[0]);
  const canonical = (await c.runAndReadAll(`SELECT json_deserialize_sql(${literal(serialized)}::JSON)`)).getRows()[0][0] as string;
  return { sql: canonical, tables, predicates: prunablePredicates(tree.statements[0]) };
}

interface SerializedSql {
  error: boolean;
  error_type?: string;
  error_message?: string;
  statements: unknown[];
}

type Node = Record<string, unknown>;

/** Every table the statement reads, by walking its tree: CTE names are its own, not tables. */
function tablesOf(statement: unknown): TableName[] {
  const ctes = new Set<string>();
  const found = new Map<string, TableName>();
  const refs: Node[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    const n = v as Node;
    const map = (n.cte_map as { map?: Array<{ key: string }> } | undefined)?.map;
    if (map) for (const entry of map) ctes.add(entry.key.toLowerCase());
    if (n.type === 'BASE_TABLE') refs.push(n);
    if (n.class === 'FUNCTION' && refusedScalar(String(n.function_name ?? '').toLowerCase())) {
      throw new QueryRefused(`the function ${String(n.function_name)} is not available here: it reads the engine's settings or environment`);
    }
    if (n.type === 'TABLE_FUNCTION') {
      const fn = n.function as Node | undefined;
      const name = String(fn?.function_name ?? '').toLowerCase();
      if (!SAFE_TABLE_FUNCTIONS.has(name) || fn?.schema || fn?.catalog) {
        throw new QueryRefused(`the table function ${name || '(unnamed)'} is not available here: name the catalog's tables as namespace.table`);
      }
    }
    for (const child of Object.values(n)) walk(child);
  };
  walk(statement);
  for (const r of refs) {
    const namespace = String(r.schema_name ?? '');
    const table = String(r.table_name ?? '');
    if (r.catalog_name) throw new QueryRefused(`name tables as namespace.table, without a catalog (${String(r.catalog_name)}.${namespace}.${table})`);
    if (!namespace) {
      if (ctes.has(table.toLowerCase())) continue;
      throw new QueryRefused(`name the table with its namespace: namespace.${table}`);
    }
    const key = `${namespace}\0${table}`;
    if (!found.has(key)) found.set(key, { namespace, table });
  }
  return [...found.values()];
}

/**
 * A table as the statement sees it: its local files under the statement's
 * directory, read by field id under its current schema, in parts that each
 * carry the deletes that apply to them (the planner's scoping by spec and
 * partition, as for a rewrite; a table without partition-scoped equality
 * deletes is one part); or, for a caller that built it, a SELECT.
 */
export type TableView = TableName & ({ select: string } | { schema: Schema; parts: readonly TablePart[] });

export interface TablePart {
  files: readonly DataFileInput[];
  positionDeletes?: PositionDeleteInput;
  equalityDeletes?: readonly EqualityDeleteInput[];
}

export interface RunRequest {
  statement: ReadOnlyStatement;
  /** A view for every table the statement names. */
  views: readonly TableView[];
  /** The statement's own directory: the only one its instance may read. */
  dir: string;
  memoryLimit: string;
  threads: number;
  timeoutMs: number;
  /** At most this many rows come back (`truncated` says when there were more). */
  rowLimit: number;
  /** And at most about this many bytes of them, as JSON. */
  byteLimit: number;
}

export interface QueryResult {
  columns: Array<{ name: string; type: string }>;
  rows: Array<Record<string, unknown>>;
  row_count: number;
  truncated: boolean;
  elapsed_ms: number;
}

/** Step 2: the statement in a sandbox of its own; see the top of the file. */
export async function runReadOnlyStatement(r: RunRequest): Promise<QueryResult> {
  const started = performance.now();
  const dir = realpathSync(r.dir);
  // No spilling: a statement that needs more than its memory is refused, and writes nothing anywhere.
  const instance = await lockedDownInstance({ readable: dir, spill: null, memoryLimit: r.memoryLimit, threads: r.threads });
  try {
    const c = await instance.connect();
    try {
      for (const namespace of new Set(r.views.map((v) => v.namespace))) await c.run(`CREATE SCHEMA IF NOT EXISTS ${ident(namespace)}`);
      for (const [n, v] of r.views.entries()) await c.run(`CREATE VIEW ${ident(v.namespace)}.${ident(v.table)} AS ${await viewSelect(c, dir, v, n)}`);
      const missing = r.statement.tables.filter((t) => !r.views.some((v) => v.namespace === t.namespace && v.table === t.table));
      if (missing.length) throw new RangeError(`no view for ${missing.map((t) => `${t.namespace}.${t.table}`).join(', ')}`);
      return { ...(await cappedRows(c, r)), elapsed_ms: Math.round(performance.now() - started) };
    } finally {
      c.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/** The SELECT of a view: the caller's, or the union of its parts, each over its files with its deletes anti-joined (loaded under a prefix of its own). */
async function viewSelect(c: DuckDBConnection, dir: string, v: TableView, n: number): Promise<string> {
  if ('select' in v) return v.select;
  const fields = writtenFields(v.schema);
  const parts = v.parts.filter((p) => p.files.length);
  if (!parts.length) {
    // A table with no data files yet: its columns, and no rows.
    return `SELECT ${fields.map((f) => `NULL::${duckType(f.type)} AS ${ident(f.name)}`).join(', ')} WHERE false`;
  }
  const inDir = (p: string, what: string): string => {
    const resolved = realpathSync(resolve(p));
    if (!resolved.startsWith(`${dir}/`)) throw new RangeError(`${what} ${p} is not under the statement's directory ${dir}`);
    return resolved;
  };
  const selects: string[] = [];
  for (const [k, part] of parts.entries()) {
    const files = part.files.map((f) => ({ ...f, localPath: inDir(f.localPath, 'data file') }));
    const deletes = await loadDeletes(c, files, part, inDir, fields, `t${n}_${k}_`);
    selects.push([
      `SELECT ${fields.map((f) => `d.${readName(f.id)} AS ${ident(f.name)}`).join(', ')}`,
      `FROM read_parquet(${pathList(files.map((f) => f.localPath))}, schema = ${readSchemaParam(readFields(fields))}, filename = true, file_row_number = true) d`,
      deletes.needInputs ? `JOIN ${deletes.inputs} i ON i.filename = d.filename` : '',
      ...deleteJoins(deletes),
    ].filter(Boolean).join('\n'));
  }
  return selects.join('\nUNION ALL\n');
}

async function cappedRows(c: DuckDBConnection, r: RunRequest): Promise<Omit<QueryResult, 'elapsed_ms'>> {
  const timer = setTimeout(() => c.interrupt(), r.timeoutMs);
  let reader;
  try {
    // One row past the cap tells whether there were more.
    reader = await c.runAndReadAll(`SELECT * FROM (${r.statement.sql}) AS answer LIMIT ${r.rowLimit + 1}`);
  } catch (err) {
    const message = (err as Error).message;
    if (/INTERRUPT/i.test(message)) throw new QueryTimedOut(`the statement ran past ${r.timeoutMs / 1000} s and was stopped`);
    if (/Out of Memory/i.test(message)) throw new QueryTooLarge(`the statement needs more than the ${r.memoryLimit} a statement may use: narrow it (fewer columns, a filter, a LIMIT)`);
    if (/Permission Error|disabled by configuration|Catalog Error|Binder Error|Parser Error|Conversion Error|Invalid Input Error|Not implemented|Out of Range/i.test(message)) {
      throw new QueryRefused(message.split('\n')[0]);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
  const names = reader.columnNames();
  const types = reader.columnTypes().map(String);
  const all = reader.getRowObjectsJson() as Array<Record<string, unknown>>;
  const rows: Array<Record<string, unknown>> = [];
  let bytes = 0;
  let truncated = all.length > r.rowLimit;
  for (const row of all.slice(0, r.rowLimit)) {
    bytes += JSON.stringify(row).length + 1;
    if (bytes > r.byteLimit) {
      truncated = true;
      break;
    }
    rows.push(row);
  }
  return { columns: names.map((name, i) => ({ name, type: types[i] })), rows, row_count: rows.length, truncated };
}
