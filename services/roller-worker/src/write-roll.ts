import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { UNREAD, UnsupportedSchemaError, type Engine, type NdjsonFile } from '@floe/engine';
import { writeParquetDataFile, type DataFileStats, type Schema } from '@floe/iceberg';
import { INGEST_TS, batchKey, mapLines, mappedRows, type MappedRows, type Reject, type SchemaField } from '@floe/ingest';
import type { ObjectClient } from '@floe/storage';
import type { BatchRef } from './map-batches';

// A roll's read, map and write, on the data-plane engine: the batches are
// fetched into the engine's scratch directory, a few at a time ahead of the
// engine, which reads each group of them into the roll's table in SQL (the
// common forms of each type; packages/engine ndjson-read.ts). A batch holding
// anything else is read the JavaScript way (packages/ingest rows.ts, the
// contract every reject and reason comes from) and its rows appended. The
// table is then written as Parquet files near the table's target size.
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
  /** Milliseconds fetching and reading (overlapped), and writing the files; of the first, the waits for a batch not fetched yet. */
  readMs: number;
  writeMs: number;
  fetchWaitMs: number;
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

/** Batches fetched ahead of the engine. */
const FETCH_AHEAD = 8;
/** The engine reads batches in groups of about this many bytes: fetching the next group overlaps reading this one. */
const GROUP_BYTES = 8 * 1024 * 1024;

export async function writeRoll(w: RollWrite, batches: BatchRef[]): Promise<WrittenRoll> {
  const t0 = performance.now();
  await mkdir(join(w.dir, 'in'), { recursive: true });
  const stamped = w.fields.some((f) => f.name === INGEST_TS) ? INGEST_TS : undefined;
  const fetched = fetchAhead(w, batches);
  try {
    return await w.engine.loadNdjson({ schema: w.schema, stamped }, async (load) => {
      const js: MappedRows = mappedRows(w.fields);
      let readInJs = 0;
      let inputBytes = 0;
      const readerErrors = new Set<string>();
      let fetchWaitMs = 0;
      for (let from = 0; from < batches.length;) {
        const group: Array<{ ref: BatchRef; file: NdjsonFile; bytes: Buffer }> = [];
        let bytes = 0;
        while (from < batches.length && (group.length === 0 || bytes < GROUP_BYTES)) {
          const waited = performance.now();
          const got = await fetched.take(from);
          fetchWaitMs += performance.now() - waited;
          bytes += got.bytes.length;
          if (got.bytes.length) group.push({ ref: batches[from], file: { localPath: got.localPath, stampMicros: batches[from].receivedAtMicros }, bytes: got.bytes });
          from++;
        }
        inputBytes += bytes;
        const left = await load.addFiles(group.map((g) => g.file));
        for (const { index, reason } of left) {
          mapLines(js, group[index].ref.batchId, group[index].ref.receivedAtMicros, group[index].bytes.toString('utf8'));
          if (reason !== UNREAD) readerErrors.add(reason.slice(0, 300));
        }
        readInJs += left.length;
        await Promise.all(group.map((g) => rm(g.file.localPath, { force: true })));
      }
      await load.appendRows(js.columns, js.count);
      const t1 = performance.now();
      const count = await load.count();
      const files = await load.writeParquet({
        outputDir: join(w.dir, 'out'), prefix: 'part', targetFileSizeBytes: w.targetFileSizeBytes, rowGroupSize: rowGroupRows(w.targetFileSizeBytes, inputBytes, count),
      });
      return { count, rejects: js.rejects, files, readInJs, readerErrors: [...readerErrors], readMs: t1 - t0, writeMs: performance.now() - t1, fetchWaitMs };
    });
  } catch (err) {
    if (!(err instanceof UnsupportedSchemaError)) throw err;
    return writeInProcess(w, batches, fetched);
  } finally {
    await fetched.stop();
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
async function writeInProcess(w: RollWrite, batches: BatchRef[], fetched: Fetched): Promise<WrittenRoll> {
  const t0 = performance.now();
  const mapped = mappedRows(w.fields);
  for (let i = 0; i < batches.length; i++) {
    const got = await fetched.take(i);
    mapLines(mapped, batches[i].batchId, batches[i].receivedAtMicros, got.bytes.toString('utf8'));
    await rm(got.localPath, { force: true });
  }
  const t1 = performance.now();
  const files: RollFile[] = [];
  if (mapped.count) {
    const written = writeParquetDataFile({ schema: w.schema, columns: mapped.columns, rowCount: mapped.count });
    const localPath = join(w.dir, 'part-0.parquet');
    await writeFile(localPath, written.bytes);
    files.push({ localPath, stats: written.stats });
  }
  return { count: mapped.count, rejects: mapped.rejects, files, readInJs: batches.length, readerErrors: [], readMs: t1 - t0, writeMs: performance.now() - t1, fetchWaitMs: 0 };
}

interface Fetched {
  /** Batch i, in the scratch directory (and in memory: a batch the engine leaves is read from these bytes); a batch object that is gone is empty. */
  take(i: number): Promise<{ localPath: string; bytes: Buffer }>;
  /** Starts no more, and settles once none is still writing into the roll's directory. */
  stop(): Promise<void>;
}

/** Fetches batches in order, up to FETCH_AHEAD ahead of the one taken. */
function fetchAhead(w: RollWrite, batches: BatchRef[]): Fetched {
  const started = new Map<number, Promise<{ localPath: string; bytes: Buffer }>>();
  const all: Promise<unknown>[] = [];
  let stopped = false;
  const start = (i: number) => {
    if (i >= batches.length || started.has(i) || stopped) return;
    const localPath = join(w.dir, 'in', `${i}-${randomUUID()}.ndjson`);
    const got = w.objects.getBytes(w.bucket, batchKey(w.sinkId, batches[i].batchId))
      .catch((err) => {
        if ((err as { kind?: string }).kind === 'not_found') return Buffer.alloc(0);
        throw err;
      })
      .then(async (bytes) => {
        if (bytes.length) await writeFile(localPath, bytes);
        return { localPath, bytes };
      });
    got.catch(() => undefined); // awaited in its turn
    started.set(i, got);
    all.push(got);
  };
  for (let i = 0; i < FETCH_AHEAD; i++) start(i);
  return {
    async take(i) {
      start(i);
      const got = started.get(i)!;
      started.delete(i);
      start(i + FETCH_AHEAD);
      return got;
    },
    async stop() {
      stopped = true;
      await Promise.allSettled(all);
    },
  };
}
