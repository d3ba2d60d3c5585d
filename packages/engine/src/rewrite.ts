// The compaction primitive: local Parquet data files of one table (and
// partition) in, new Parquet files near a target size out, with every input
// row exactly once except the deleted ones, columns in schema order, Iceberg
// field ids on every column, zstd, and each file's metrics from its footer.
//
// Each output file is one COPY of one statement: read_parquet over its group
// of inputs (bin-pack.ts: whole row groups of the inputs, in order), columns
// found by field id (columns.ts), anti-joined with the position deletes (by
// local file and row position) and with each set of equality deletes (null
// equals null, as Iceberg says), optionally sorted (each file is sorted; the
// ranges of two files may overlap). When the input may need more than one
// file, a probe COPY of its first row group's worth (at most 16 MiB of
// input) first measures output bytes per input byte (and is kept when it
// turns out to be the whole output); every file written refines that. Input
// that fits one file as it is skips the probe: it is written whole, and
// split by the ratio that showed only if the output came out too big. Files are written to a staging directory, then renamed
// `<prefix>-<n>.parquet` in the output directory; nothing is overwritten.
//
// Which deletes apply to which file is the planner's (Iceberg's scoping by
// partition and sequence number); the engine applies what it is given, with
// one help: an equality delete with a sequenceNumber applies only to data
// files with a smaller one (then every data file must carry its own).
// Deletion vectors (v3) are not read here: pass their positions as rows.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DataFileStats, Schema, SortOrder } from '@floe/iceberg';
import { expectedFileCount, nextGroupEnd, probeEnd, type Unit } from './bin-pack.js';
import { bytesOf, dataBytes, partialFilter, rowRanges, unitsOf } from './units.js';
import {
  UnsupportedSchemaError, leavesOf, readFields, readName, readSchemaParam, writtenFields, type Leaf,
} from './columns.js';
import { dataFileOptions, inScratch, nameStagedFiles, prepareOutput } from './output-files.js';
import { deleteJoins, loadDeletes, type EqualityDeleteInput, type PositionDeleteInput } from './deletes.js';
import { LINEAGE_FIELDS, lineageColumns } from './lineage.js';
import { orderBy } from './sort-order.js';
import { ident, literal, pathList } from './sql.js';

export interface DataFileInput {
  /** The file's local copy, under the scratch directory. */
  localPath: string;
  /** Its Iceberg `file_path`: the name position deletes refer to. */
  filePath: string;
  /** Its data sequence number: needed for equality deletes with one, and for row lineage. */
  sequenceNumber?: bigint;
  /** Its `first_row_id` (v3): rows without a `_row_id` get first_row_id + position. */
  firstRowId?: bigint | null;
}

export interface RewriteRequest {
  /** The table's current schema: the output's columns, in this order. */
  schema: Schema;
  files: readonly DataFileInput[];
  positionDeletes?: PositionDeleteInput;
  equalityDeletes?: readonly EqualityDeleteInput[];
  targetFileSizeBytes: number;
  /** Under the scratch directory; created if missing. */
  outputDir: string;
  /** Output files are `<prefix>-<n>.parquet`, n from 0. */
  prefix: string;
  /** Honoured for identity and order-preserving transforms (sort-order.ts). */
  sortOrder?: SortOrder;
  /** v3: write `_row_id` and `_last_updated_sequence_number`, kept from the inputs or inherited. */
  rowLineage?: boolean;
  /** Code points (strings) or bytes (binary) kept in bounds; Iceberg's default is 16. */
  truncateLength?: number;
}

export interface RewrittenFile {
  localPath: string;
  stats: DataFileStats;
}

export async function rewriteDataFiles(c: DuckDBConnection, scratchDir: string, request: RewriteRequest): Promise<RewrittenFile[]> {
  // validate
  const inside = (p: string, what: string): string => inScratch(scratchDir, p, what);
  if (!request.files.length) throw new RangeError('nothing to rewrite');
  const target = request.targetFileSizeBytes;
  const files = request.files.map((f) => ({ ...f, localPath: inside(f.localPath, 'data file') }));
  const fields = writtenFields(request.schema);
  const reads = readFields(fields);
  const lineage = request.rowLineage ? lineageColumns(files) : undefined;
  const out = [...fields.map((f) => ({ id: f.id, name: f.name, type: f.type })), ...(lineage ? LINEAGE_FIELDS : [])];
  const leaves: Leaf[] = leavesOf(out);
  const { outputDir, staging } = prepareOutput(scratchDir, request);

  await requireFieldIds(c, [...files.map((f) => f.localPath), ...(request.equalityDeletes ?? []).map((e) => inside(e.localPath, 'equality delete file'))]);

  // deletes, and the inputs table they and lineage join through (connection-local: gone with the connection)
  const deletes = await loadDeletes(c, files, request, inside, fields);
  const needInputs = deletes.needInputs || lineage !== undefined;

  // one statement per group of units
  const select = [...fields.map((f) => `d.${readName(f.id)} AS ${ident(f.name)}`), ...(lineage?.selects ?? [])].join(', ');
  const schemaParam = readSchemaParam([...reads, ...(lineage?.reads ?? [])]);
  const order = request.sortOrder ? orderBy(request.sortOrder, request.schema) : '';
  const units = await unitsOf(c, files.map((f) => f.localPath));
  const statement = (group: readonly Unit[]): string => {
    const ranges = rowRanges(units, group);
    return [
      `SELECT ${select}`,
      `FROM read_parquet(${pathList([...ranges.keys()].map((i) => files[i].localPath))}, schema = ${schemaParam}, filename = true, file_row_number = true) d`,
      needInputs ? `JOIN ${deletes.inputs} i ON i.filename = d.filename` : '',
      ...deleteJoins(deletes),
      partialFilter(ranges, files),
      order,
    ].filter(Boolean).join('\n');
  };
  const options = dataFileOptions(out, request.schema);

  // write each group to the staging directory, then name the files
  mkdirSync(staging);
  try {
    const staged: string[] = [];
    const written = { in: 0, out: 0 };
    let ratio = 1;
    let from = 0;
    if (units.length > 1 && expectedFileCount(2 * bytesOf(units), target) > 1) {
      // The output/input ratio decides the split here: measure it on a first file, kept if it turns out to be
      // the whole output. Input that fits one file as it is (the planner's usual group, up to the target) is
      // that first file whole — most likely the output; otherwise a probe of one output row group's worth.
      const end = expectedFileCount(bytesOf(units), target) === 1 ? units.length : probeEnd(units);
      const first = join(staging, 'part-0.parquet');
      await c.run(`COPY (${statement(units.slice(0, end))}) TO ${literal(first)} (${options})`);
      ratio = dataBytes(first) / bytesOf(units.slice(0, end));
      if (end === units.length && expectedFileCount(dataBytes(first), target) === 1) {
        staged.push(first);
        from = end;
      } else rmSync(first);
    }
    while (from < units.length) {
      const end = nextGroupEnd(units, from, target, ratio);
      const path = join(staging, `part-${staged.length}.parquet`);
      await c.run(`COPY (${statement(units.slice(from, end))}) TO ${literal(path)} (${options})`);
      staged.push(path);
      written.in += bytesOf(units.slice(from, end));
      written.out += dataBytes(path);
      if (written.in > 0) ratio = written.out / written.in;
      from = end;
    }
    // A group whose every row was deleted leaves no file.
    return await nameStagedFiles(c, staged, outputDir, request.prefix, leaves, request.truncateLength ?? 16);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Columns are found by field id, so a file without any (written outside
 * Iceberg, added by name mapping) would read as all nulls: refused instead.
 */
async function requireFieldIds(c: DuckDBConnection, paths: readonly string[]): Promise<void> {
  const rows = (await c.runAndReadAll(`
    SELECT file_name FROM parquet_schema(${pathList(paths)}) GROUP BY file_name HAVING count(field_id) = 0`)).getRows();
  if (rows.length) throw new UnsupportedSchemaError(`${rows[0][0]} has no Iceberg field ids (name mapping is not supported)`);
}
