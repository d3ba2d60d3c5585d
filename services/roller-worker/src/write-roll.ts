import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { UNREAD, UnsupportedSchemaError, type Engine, type NdjsonFile } from '@floe/engine';
import { mapLimited, writeParquetDataFile, type DataFileStats, type Schema } from '@floe/iceberg';
import { INGEST_TS, mapLines, mappedRows, type MappedRows, type Reject, type SchemaField } from '@floe/ingest';
import type { ObjectClient } from '@floe/storage';
import { readBatchObject, type BatchRef } from './map-batches';

// A roll's read, map and write, on the data-plane engine: the batches are
// fetched into the roll's directory under the engine's scratch directory;
// a roll that fits one file is read in SQL and written in one statement
// (the common forms of each type; packages/engine ndjson-read.ts). When that
// fails, or the roll is larger than a file, the batches go into the roll's
// table in groups, and a batch holding anything SQL leaves is read the
// JavaScript way (packages/ingest rows.ts, the contract every reject and
// reason comes from) and its rows appended; the table is then written as
// Parquet files near the table's target size.
//
// A table whose schema the engine cannot write (a fixed or timestamptz_ns
// column) is rolled by @floe/iceberg's own writer, as one file.

export interface RollFile {
  localPath: string;
  stats: DataFileStats;
}

export interface WrittenRoll {
  count: number;
  rejects: Reject[];
  files: RollFile[];
  /** Batches read the JavaScript way. */
  readInJs: number;
  /** Why the engine's JSON reader refused a batch, when it did (a line it cannot parse, memory): logged, never a failure. */
  readerErrors: string[];
  /** Milliseconds fetching the batches, reading them into the roll's table (0 for the one-statement shortcut), and writing the files. */
  fetchMs: number;
  readMs: number;
  writeMs: number;
}

export interface RollWrite {
  engine: Engine;
  objects: ObjectClient;
  bucket: string;
  sinkId: string;
  /** The table's current schema, and its fields as the JavaScript reading takes them. */
  schema: Schema;
  fields: SchemaField[];
  targetFileSizeBytes: number;
  /** The roll's own directory under the engine's scratch directory; the caller removes it once the files are uploaded. */
  dir: string;
}

/** Batches fetched at once. */
const FETCHES_AT_ONCE = 8;
/** Batches go into the roll's table in groups of about this many bytes: a group holding a batch SQL leaves is read again file by file. */
const GROUP_BYTES = 8 * 1024 * 1024;

interface LocalBatch {
  ref: BatchRef;
  file: NdjsonFile;
  bytes: number;
}

export async function writeRoll(w: RollWrite, batches: BatchRef[]): Promise<WrittenRoll> {
  const t0 = performance.now();
  const local = await fetchBatches(w, batches);
  const inputBytes = local.reduce((sum, b) => sum + b.bytes, 0);
  const t1 = performance.now();
  const stamped = w.fields.some((f) => f.name === INGEST_TS) ? INGEST_TS : undefined;
  try {
    return await w.engine.loadNdjson({ schema: w.schema, stamped }, async (load) => {
      const out = { outputDir: join(w.dir, 'out'), prefix: 'part', targetFileSizeBytes: w.targetFileSizeBytes };
      // The shortcut, for a roll that fits one file and reads wholly in SQL: one statement reads the batches and writes the file.
      if (inputBytes <= w.targetFileSizeBytes) {
        const files = await load.copyFiles(local.map((b) => b.file), out);
        if (files) {
          const count = Number(files.reduce((n, f) => n + f.stats.record_count, 0n));
          return { count, rejects: [], files, readInJs: 0, readerErrors: [], fetchMs: t1 - t0, readMs: 0, writeMs: performance.now() - t1 };
        }
      }
      // Otherwise into the roll's table, group by group; a batch SQL leaves is read the JavaScript way and its rows appended.
      const js: MappedRows = mappedRows(w.fields);
      const readerErrors = new Set<string>();
      let readInJs = 0;
      for (let from = 0; from < local.length;) {
        let to = from;
        for (let bytes = 0; to < local.length && (to === from || bytes < GROUP_BYTES); to++) bytes += local[to].bytes;
        const group = local.slice(from, to);
        for (const { index, reason } of await load.addFiles(group.map((b) => b.file))) {
          mapLines(js, group[index].ref.batchId, group[index].ref.receivedAtMicros, await readFile(group[index].file.localPath, 'utf8'));
          if (reason !== UNREAD) readerErrors.add(reason.slice(0, 300));
          readInJs++;
        }
        from = to;
      }
      await load.appendRows(js.columns, js.count);
      const t2 = performance.now();
      const count = await load.count();
      const files = await load.writeParquet({ ...out, rowGroupSize: rowGroupRows(w.targetFileSizeBytes, inputBytes, count) });
      return { count, rejects: js.rejects, files, readInJs, readerErrors: [...readerErrors], fetchMs: t1 - t0, readMs: t2 - t1, writeMs: performance.now() - t2 };
    });
  } catch (err) {
    if (!(err instanceof UnsupportedSchemaError)) throw err;
    return writeInProcess(w, local, t1 - t0);
  }
}

/**
 * Rows per row group: DuckDB's default (122,880) when the roll's NDJSON fits
 * one file (its Parquet is smaller still); else about a quarter of the
 * target's worth of NDJSON per group, so that a file, which ends after the
 * row group that reaches the target, stays near it.
 */
export function rowGroupRows(targetBytes: number, inputBytes: number, rows: number): number | undefined {
  if (inputBytes <= targetBytes || rows === 0) return undefined;
  return Math.max(1024, Math.min(122_880, Math.floor((rows * targetBytes) / 4 / inputBytes)));
}

/** The roll for a schema the engine cannot write: every batch read the JavaScript way, one file from @floe/iceberg's writer. */
async function writeInProcess(w: RollWrite, local: LocalBatch[], fetchMs: number): Promise<WrittenRoll> {
  const t0 = performance.now();
  const mapped = mappedRows(w.fields);
  for (const b of local) mapLines(mapped, b.ref.batchId, b.ref.receivedAtMicros, await readFile(b.file.localPath, 'utf8'));
  const t1 = performance.now();
  const files: RollFile[] = [];
  if (mapped.count) {
    const written = writeParquetDataFile({ schema: w.schema, columns: mapped.columns, rowCount: mapped.count });
    const localPath = join(w.dir, 'part-0.parquet');
    await writeFile(localPath, written.bytes);
    files.push({ localPath, stats: written.stats });
  }
  return { count: mapped.count, rejects: mapped.rejects, files, readInJs: local.length, readerErrors: [], fetchMs, readMs: t1 - t0, writeMs: performance.now() - t1 };
}

/** The batches, in order, fetched into the roll's directory, FETCHES_AT_ONCE at a time; a batch object that is gone is left out (it maps to nothing). */
async function fetchBatches(w: RollWrite, batches: BatchRef[]): Promise<LocalBatch[]> {
  await mkdir(join(w.dir, 'in'), { recursive: true });
  const got = await mapLimited(batches, FETCHES_AT_ONCE, async (ref) => {
    const bytes = await readBatchObject(w.objects, w.bucket, w.sinkId, ref.batchId);
    if (!bytes?.length) return null;
    const localPath = join(w.dir, 'in', `${randomUUID()}.ndjson`);
    await writeFile(localPath, bytes);
    return { ref, file: { localPath, stampMicros: ref.receivedAtMicros }, bytes: bytes.length };
  });
  return got.filter((b): b is LocalBatch => b !== null);
}
