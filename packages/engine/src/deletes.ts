// Position and equality deletes as connection-local temporary tables that
// the rewrite anti-joins with (they go when the rewrite's connection closes):
// - `__inputs` (filename, file_path, data_seq, first_row_id): each input's
//   local path beside its Iceberg file_path and numbers; always made, joined
//   only when something needs it;
// - `__pos` (filename, pos): position deletes translated to local files;
//   rows naming a file that is not an input are ignored;
// - `__eq<n>`: one per set of equality field ids, the delete files' values
//   read by field id, with each file's sequence number.
// Equality fields must be top-level primitive columns of the schema (nested
// ones are refused: read_parquet finds only top-level columns by field id).
// A statement that reads several tables loads each one's deletes under a
// prefix of its own (`__<prefix>inputs`, …; the rewrite's is empty).
import type { DuckDBConnection } from '@duckdb/node-api';
import { requirePrimitive, type StructField } from '@floe/iceberg';
import { UnsupportedSchemaError, duckType, readName, readSchemaParam } from './columns.js';
import { literal, pathList } from './sql.js';

export interface PositionDeleteInput {
  /** (file_path, pos) rows: v2 position delete files already read, or a deletion vector's positions. */
  rows?: readonly { file_path: string; pos: bigint | number }[];
  /** Local Parquet position delete files (columns `file_path`, `pos`). */
  localPaths?: readonly string[];
}

export interface EqualityDeleteInput {
  /** A local Parquet equality delete file. */
  localPath: string;
  /** Its `equality_ids`. */
  equalityIds: readonly number[];
  /** Its data sequence number: then it applies only to data files with a smaller one. */
  sequenceNumber?: bigint;
}

interface InputFile {
  localPath: string;
  filePath: string;
  sequenceNumber?: bigint;
  firstRowId?: bigint | null;
}

export interface LoadedDeletes {
  /** The tables' names: the inputs, and the position deletes. */
  inputs: string;
  pos: string;
  position: boolean;
  equality: { table: string; ids: number[]; bySequence: boolean }[];
  /** Whether the rewrite must join `__inputs` (sequence-scoped equality deletes). */
  needInputs: boolean;
}

export async function loadDeletes(
  c: DuckDBConnection, files: readonly InputFile[], request: { positionDeletes?: PositionDeleteInput; equalityDeletes?: readonly EqualityDeleteInput[] },
  inScratch: (p: string, what: string) => string, fields: readonly StructField[], prefix = '',
): Promise<LoadedDeletes> {
  const names = { inputs: `__${prefix}inputs`, pos: `__${prefix}pos` };
  await c.run(`CREATE TEMP TABLE ${names.inputs} (filename VARCHAR, file_path VARCHAR, data_seq BIGINT, first_row_id BIGINT)`);
  const inputs = await c.createAppender(names.inputs, 'main', 'temp');
  for (const f of files) {
    inputs.appendVarchar(f.localPath);
    inputs.appendVarchar(f.filePath);
    if (f.sequenceNumber === undefined) inputs.appendNull(); else inputs.appendBigInt(f.sequenceNumber);
    if (f.firstRowId === undefined || f.firstRowId === null) inputs.appendNull(); else inputs.appendBigInt(f.firstRowId);
    inputs.endRow();
  }
  inputs.closeSync();

  const loaded: LoadedDeletes = { ...names, position: false, equality: [], needInputs: false };
  const pos = request.positionDeletes;
  if (pos?.rows?.length || pos?.localPaths?.length) {
    loaded.position = true;
    await c.run(`CREATE TEMP TABLE ${names.pos} (filename VARCHAR, pos BIGINT)`);
    if (pos.rows?.length) {
      const localByPath = new Map(files.map((f) => [f.filePath, f.localPath]));
      const appender = await c.createAppender(names.pos, 'main', 'temp');
      for (const r of pos.rows) {
        const local = localByPath.get(r.file_path);
        if (local === undefined) continue;
        appender.appendVarchar(local);
        appender.appendBigInt(BigInt(r.pos));
        appender.endRow();
      }
      appender.closeSync();
    }
    if (pos.localPaths?.length) {
      const paths = pos.localPaths.map((p) => inScratch(p, 'position delete file'));
      await c.run(`INSERT INTO ${names.pos} SELECT i.filename, p.pos FROM read_parquet(${pathList(paths)}) p JOIN ${names.inputs} i ON i.file_path = p.file_path`);
    }
  }

  const groups = new Map<string, EqualityDeleteInput[]>();
  for (const e of request.equalityDeletes ?? []) {
    const key = [...new Set(e.equalityIds)].sort((a, b) => a - b).join(',');
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const byId = new Map(fields.map((f) => [f.id, f]));
  for (const [key, group] of groups) {
    const ids = key.split(',').map(Number);
    const columns = ids.map((id) => {
      const f = byId.get(id);
      if (!f || typeof f.type !== 'string') throw new UnsupportedSchemaError(`equality field ${id} is not a top-level primitive column`);
      requirePrimitive(f.type);
      return { id, name: readName(id), type: duckType(f.type) };
    });
    const bySequence = group.some((e) => e.sequenceNumber !== undefined);
    if (bySequence && (group.some((e) => e.sequenceNumber === undefined) || files.some((f) => f.sequenceNumber === undefined))) {
      throw new RangeError('equality deletes scoped by sequence number need one on every delete and data file');
    }
    const table = `__${prefix}eq${loaded.equality.length}`;
    await c.run(`CREATE TEMP TABLE ${table} (${columns.map((col) => `${col.name} ${col.type}`).join(', ')}, seq BIGINT)`);
    for (const e of group) {
      const seq = e.sequenceNumber === undefined ? 'NULL' : `${e.sequenceNumber}::BIGINT`;
      await c.run(`INSERT INTO ${table} SELECT ${columns.map((col) => col.name).join(', ')}, ${seq}
        FROM read_parquet(${literal(inScratch(e.localPath, 'equality delete file'))}, schema = ${readSchemaParam(columns)})`);
    }
    loaded.equality.push({ table, ids, bySequence });
    if (bySequence) loaded.needInputs = true;
  }
  return loaded;
}

/** The anti joins that drop deleted rows from `d` (the data files read with filename and file_row_number). */
export function deleteJoins(loaded: LoadedDeletes): string[] {
  const joins: string[] = [];
  if (loaded.position) joins.push(`ANTI JOIN ${loaded.pos} p ON p.filename = d.filename AND p.pos = d.file_row_number`);
  loaded.equality.forEach(({ table, ids, bySequence }, n) => {
    const on = ids.map((id) => `d.${readName(id)} IS NOT DISTINCT FROM e${n}.${readName(id)}`);
    if (bySequence) on.push(`i.data_seq < e${n}.seq`);
    joins.push(`ANTI JOIN ${table} e${n} ON ${on.join(' AND ')}`);
  });
  return joins;
}
