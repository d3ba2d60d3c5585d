// NDJSON in, Parquet data files near a target size out: the roller's write.
//
// A load holds one connection and a temporary table of the table's written
// columns. `addFiles` reads local NDJSON files into it with ndjson-read.ts's
// strict reading, all in one statement; when that statement fails (a value
// left to the JavaScript reading, or a line DuckDB's JSON reader refuses),
// each file is read on its own, and the files that still fail are handed
// back: the caller reads them the JavaScript way and adds their rows with
// `appendRows`. Each statement is all or nothing, so a file's rows are in the
// table once or not at all. `writeParquet` then writes the table as files
// near the target size (DuckDB's FILE_SIZE_BYTES: a file ends after the row
// group that reaches it), with Iceberg field ids, zstd and each file's
// metrics from its footer, named `<prefix>-<n>.parquet` in order.
// `copyFiles` is the shortcut when every file reads in SQL: one COPY
// straight from the files, no table (it reads the data once, not twice).
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Schema } from '@floe/iceberg';
import { duckType, leavesOf, writtenFields } from './columns.js';
import { duckValue } from './duck-values.js';
import { UNREAD, ndjsonSelect, unreadableFields, type NdjsonFile } from './ndjson-read.js';
import { dataFileOptions, inScratch, nameStagedFiles, prepareOutput } from './output-files.js';
import type { RewrittenFile } from './rewrite.js';
import { ident, literal } from './sql.js';

/** Rows appended between two turns of the event loop (about 0.1 s of appending). */
const APPEND_ROWS_PER_TURN = 10_000;

export type { NdjsonFile } from './ndjson-read.js';

export interface NdjsonLoadRequest {
  /** The table's current schema: the written columns, in this order. */
  schema: Schema;
  /** A timestamptz column filled with each file's stamp (the sink's `__ingest_ts`), not read from the lines. */
  stamped?: string;
}

export interface NdjsonLoad {
  /** Why no file can be read in SQL for this schema (every file is the caller's), or undefined. */
  readonly unreadable: string | undefined;
  /** Reads the files in; those left to the caller, by index into `files`, each with why (UNREAD, or the reader's own error). */
  addFiles(files: readonly NdjsonFile[]): Promise<Array<{ index: number; reason: string }>>;
  /** Rows the caller read, column by column in @floe/iceberg's value representation, by field name. */
  appendRows(columns: Record<string, readonly unknown[]>, count: number): Promise<void>;
  /** Rows in the table so far. */
  count(): Promise<number>;
  /** The table as Parquet files near the target size. */
  writeParquet(out: ParquetOut): Promise<RewrittenFile[]>;
  /**
   * The shortcut for files that need nothing else: read in SQL and written
   * as Parquet in one statement, without the table; null (nothing written,
   * the table untouched) when any value or line is not read in SQL.
   */
  copyFiles(files: readonly NdjsonFile[], out: ParquetOut): Promise<RewrittenFile[] | null>;
}

export interface ParquetOut {
  outputDir: string;
  /** Files are `<prefix>-<n>.parquet`, n from 0, in the order written. */
  prefix: string;
  targetFileSizeBytes: number;
  /** Rows per row group (DuckDB's default otherwise): a file ends after the row group that reaches the target. */
  rowGroupSize?: number;
}

const TABLE = 'ndjson_rows';

export async function openNdjsonLoad(c: DuckDBConnection, scratchDir: string, request: NdjsonLoadRequest): Promise<NdjsonLoad> {
  const inside = (files: readonly NdjsonFile[]) => files.map((f) => ({ ...f, localPath: inScratch(scratchDir, f.localPath, 'NDJSON file') }));
  const fields = writtenFields(request.schema);
  const unreadable = unreadableFields(fields, request.stamped);
  await c.run(`CREATE TEMP TABLE ${TABLE} (${fields.map((f) => `${ident(f.name)} ${duckType(f.type)}`).join(', ')})`);
  const count = async (): Promise<number> => Number((await c.runAndReadAll(`SELECT count(*)::BIGINT FROM ${TABLE}`)).getRows()[0][0]);
  const insert = (files: readonly NdjsonFile[]) => c.run(`INSERT INTO ${TABLE} ${ndjsonSelect(fields, files, request.stamped)}`);

  return {
    unreadable,
    async addFiles(files) {
      if (!files.length) return [];
      files = inside(files);
      if (unreadable) return files.map((_, index) => ({ index, reason: unreadable }));
      try {
        await insert(files);
        return [];
      } catch {
        // Some file holds what SQL leaves to the JavaScript reading: find which, one at a time.
      }
      const left: Array<{ index: number; reason: string }> = [];
      for (let index = 0; index < files.length; index++) {
        try {
          await insert([files[index]]);
        } catch (err) {
          const message = (err as Error).message;
          left.push({ index, reason: message.includes(UNREAD) ? UNREAD : message });
        }
      }
      return left;
    },
    async appendRows(columns, count) {
      if (!count) return;
      const appender = await c.createAppender(TABLE, 'main', 'temp');
      try {
        const types = fields.map((_, k) => appender.columnType(k));
        const arrays = fields.map((f) => columns[f.name]);
        for (let r = 0; r < count; r++) {
          for (let k = 0; k < fields.length; k++) {
            const v = arrays[k]?.[r];
            if (v === null || v === undefined) appender.appendNull();
            else appender.appendValue(duckValue(fields[k].type, v), types[k]);
          }
          appender.endRow();
          // Appending is synchronous work: the event loop gets a turn every so often, so a worker's
          // job lock is renewed and its health answered while a large backlog goes in.
          if (r % APPEND_ROWS_PER_TURN === APPEND_ROWS_PER_TURN - 1) await new Promise<void>((resolve) => setImmediate(resolve));
        }
        appender.flushSync();
      } finally {
        appender.closeSync();
      }
    },
    count,
    async writeParquet(out) {
      const where = prepareOutput(scratchDir, out);
      if ((await count()) === 0) return [];
      return (await copyTo(TABLE, out, where))!;
    },
    async copyFiles(files, out) {
      if (unreadable || !files.length) return null;
      const source = `(${ndjsonSelect(fields, inside(files), request.stamped)})`;
      return copyTo(source, out, prepareOutput(scratchDir, out), true);
    },
  };

  /** COPYs `source` as Parquet files near the target, named and measured; null when `optimistic` and the statement failed (nothing kept). */
  async function copyTo(source: string, out: ParquetOut, { outputDir, staging }: { outputDir: string; staging: string }, optimistic = false): Promise<RewrittenFile[] | null> {
    try {
      try {
        await c.run(`COPY ${source} TO ${literal(staging)} (${dataFileOptions(fields, request.schema)},
          FILE_SIZE_BYTES ${Math.floor(out.targetFileSizeBytes)}${out.rowGroupSize ? `, ROW_GROUP_SIZE ${out.rowGroupSize}` : ''})`);
      } catch (err) {
        if (optimistic) return null;
        throw err;
      }
      // DuckDB names them data_<n>.parquet, in the order written.
      const staged = readdirSync(staging).map((n) => ({ n, k: Number(/^data_(\d+)\.parquet$/.exec(n)?.[1] ?? NaN) }))
        .filter((f) => Number.isInteger(f.k)).sort((a, b) => a.k - b.k).map((f) => join(staging, f.n));
      return await nameStagedFiles(c, staged, outputDir, out.prefix, leavesOf(fields), 16);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
}
