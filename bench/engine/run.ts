// bench/engine: rows/s of @floe/engine's rewriteDataFiles (the compaction
// primitive: field ids, zstd, metrics from the footer) on ~1M rows in 100
// files written by @floe/iceberg's writer (the roller's files), beside the
// floor: DuckDB's own plain `COPY (SELECT * FROM read_parquet([...])) TO …`
// of the same files in the same locked-down instance, and their ratio
// (issue 28 asks compaction for ≥ 0.7 of the engine's own read-plus-write).
// Also, for scale: the same rewrite with 1% of the rows position-deleted,
// and into files of 1 MiB (4 of them: a probe, then 4 COPYs); and a rewrite
// sorted by a string column, with room and with a memory limit far under the
// sort's needs (BENCH_SPILL_MEMORY, 64MB), so the engine spills.
//
// BENCH_ROWS (default 1,000,000) rows in BENCH_FILES (100) files;
// BENCH_REPEATS (5) timed runs of each, after one warm-up, medians shown;
// BENCH_THREADS (all cores) and BENCH_MEMORY ('2GB') for the engine.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openEngine, type DataFileInput, type RewriteRequest } from '@floe/engine';
import { writeParquetDataFile, type Schema } from '@floe/iceberg';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const FILES = Number(process.env.BENCH_FILES ?? 100);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const THREADS = Number(process.env.BENCH_THREADS ?? availableParallelism());
const MEMORY = process.env.BENCH_MEMORY ?? '2GB';
const SPILL_MEMORY = process.env.BENCH_SPILL_MEMORY ?? '64MB';
const TARGET = 0.7;

/** A sink table as the roller makes one: event fields plus `__ingest_ts`. */
const schema: Schema = { type: 'struct', 'schema-id': 0, fields: [
  { id: 1, name: 'event_id', required: false, type: 'long' },
  { id: 2, name: 'ts', required: false, type: 'timestamptz' },
  { id: 3, name: 'user_id', required: false, type: 'string' },
  { id: 4, name: 'kind', required: false, type: 'string' },
  { id: 5, name: 'amount', required: false, type: 'decimal(12,2)' },
  { id: 6, name: 'score', required: false, type: 'double' },
  { id: 7, name: 'ok', required: false, type: 'boolean' },
  { id: 8, name: 'device', required: false, type: { type: 'struct', fields: [
    { id: 9, name: 'os', required: false, type: 'string' },
    { id: 10, name: 'version', required: false, type: 'int' },
  ] } },
  { id: 11, name: '__ingest_ts', required: false, type: 'timestamptz' },
] };
const KINDS = ['view', 'click', 'purchase', 'signup', 'logout'];
const OS = ['linux', 'macos', 'windows', 'ios', 'android'];

function rowOf(i: number): Record<string, unknown> {
  return {
    event_id: BigInt(i), ts: 1_790_000_000_000_000n + BigInt(i) * 1_000n, user_id: `user-${(i * 7919) % 50_000}`,
    kind: KINDS[i % 5], amount: i % 10 ? `${i % 10_000}.${i % 100}` : null, score: (i % 1000) / 10, ok: i % 3 === 0,
    device: { os: OS[i % 5], version: i % 20 }, __ingest_ts: 1_790_000_000_000_000n + BigInt(Math.floor(i / 10_000)) * 60_000_000n,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const say = (line: string) => process.stdout.write(`${line}\n`);

const root = mkdtempSync(join(tmpdir(), 'floe-bench-engine-'));
const engine = await openEngine({ scratchDir: join(root, 'scratch'), memoryLimit: MEMORY, threads: THREADS });
try {
  // the roller's files
  let started = performance.now();
  const inputDir = join(engine.scratchDir, 'in');
  mkdirSync(inputDir);
  const perFile = Math.ceil(ROWS / FILES);
  const files: DataFileInput[] = [];
  for (let f = 0; f < FILES; f++) {
    const rows = Array.from({ length: Math.min(perFile, ROWS - f * perFile) }, (_, k) => rowOf(f * perFile + k));
    const localPath = join(inputDir, `${f}.parquet`);
    writeFileSync(localPath, writeParquetDataFile({ schema, rows }).bytes);
    files.push({ localPath, filePath: `s3://bench/tbl/data/${f}.parquet` });
  }
  const rows = Number(await engine.countRows(files.map((f) => f.localPath)));
  say(`input: ${rows.toLocaleString()} rows in ${FILES} files written by @floe/iceberg in ${((performance.now() - started) / 1000).toFixed(1)} s; engine: ${THREADS} threads, ${MEMORY}`);

  // the runs
  let n = 0;
  const list = files.map((f) => `'${f.localPath}'`).join(', ');
  const floor = async () => {
    await engine.query(`COPY (SELECT * FROM read_parquet([${list}])) TO '${join(engine.scratchDir, `floor-${n++}.parquet`)}' (FORMAT parquet, COMPRESSION zstd)`);
  };
  const rewrite = (extra: Partial<RewriteRequest> = {}) => async () => {
    const outputDir = join(engine.scratchDir, `out-${n++}`);
    await engine.rewriteDataFiles({ schema, files, targetFileSizeBytes: 128 * 1024 * 1024, outputDir, prefix: 'c', ...extra });
    rmSync(outputDir, { recursive: true });
  };
  const deletes = Array.from({ length: Math.floor(rows / 100) }, (_, k) => ({ file_path: files[k % FILES].filePath, pos: Math.floor(k / FILES) * 100 }));
  const cases: [string, () => Promise<void>][] = [
    ['floor: COPY (SELECT * FROM read_parquet([...])) TO … (zstd)', floor],
    ['rewriteDataFiles, 128 MiB target', rewrite()],
    ['rewriteDataFiles, 1% position-deleted', rewrite({ positionDeletes: { rows: deletes } })],
    ['rewriteDataFiles, 1 MiB target (4 files)', rewrite({ targetFileSizeBytes: 1024 * 1024 })],
  ];
  const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (let r = 0; r <= REPEATS; r++) {
    for (const [name, run] of cases) {
      started = performance.now();
      await run();
      if (r > 0) times.get(name)!.push(performance.now() - started); // r = 0 warms up
    }
  }
  const rate = (name: string) => rows / (median(times.get(name)!) / 1000);
  const floorRate = rate(cases[0][0]);
  for (const [name] of cases) {
    say(`${name.padEnd(62)} ${Math.round(rate(name)).toLocaleString().padStart(12)} rows/s  (median ${median(times.get(name)!).toFixed(0)} ms)  ${(rate(name) / floorRate).toFixed(2)}× floor`);
  }
  const ratio = rate(cases[1][0]) / floorRate;
  say(`ratio rewriteDataFiles / floor: ${ratio.toFixed(2)} (target ≥ ${TARGET}) ${ratio >= TARGET ? 'ok' : 'BELOW TARGET'}`);

  // Past memory: the rewrite sorted by user_id (every row sorted at once) in this engine, and in one
  // whose memory limit (BENCH_SPILL_MEMORY) is far under the sort's needs, so DuckDB spills to
  // <scratch>/.spill; the spill directory's size is sampled while it runs.
  const sortOrder = { 'order-id': 1, fields: [{ transform: 'identity', 'source-id': 3, direction: 'asc', 'null-order': 'nulls-first' }] } as RewriteRequest['sortOrder'];
  const sorted = (e: typeof engine) => async () => {
    const outputDir = join(e.scratchDir, `sorted-${n++}`);
    await e.rewriteDataFiles({ schema, files: files.map((f) => ({ ...f, localPath: join(e.scratchDir, 'in', basename(f.localPath)) })), targetFileSizeBytes: 128 * 1024 * 1024, outputDir, prefix: 's', sortOrder });
    rmSync(outputDir, { recursive: true });
  };
  const timedOnce = async (run: () => Promise<void>, spillDir: string) => {
    let peak = 0;
    const sampler = setInterval(() => { peak = Math.max(peak, dirBytes(spillDir)); }, 25);
    const t0 = performance.now();
    try {
      await run();
      return { ms: performance.now() - t0, peak, error: null as string | null };
    } catch (err) {
      return { ms: performance.now() - t0, peak, error: (err as Error).message.split('\n')[0] };
    } finally {
      clearInterval(sampler);
    }
  };
  const small = await openEngine({ scratchDir: join(root, 'scratch-small'), memoryLimit: SPILL_MEMORY, threads: THREADS });
  try {
    cpSync(inputDir, join(small.scratchDir, 'in'), { recursive: true });
    await sorted(engine)(); // warm-up
    const roomy = await timedOnce(sorted(engine), join(engine.scratchDir, '.spill'));
    const tight = await timedOnce(sorted(small), join(small.scratchDir, '.spill'));
    const line = (label: string, r: typeof roomy) => say(`${label.padEnd(62)} ${r.error ? `failed: ${r.error}` : `${Math.round(rows / (r.ms / 1000)).toLocaleString().padStart(12)} rows/s  (${r.ms.toFixed(0)} ms)  peak spill ${(r.peak / 1024 / 1024).toFixed(1)} MiB`}`);
    line(`rewriteDataFiles sorted by user_id, ${MEMORY}`, roomy);
    line(`rewriteDataFiles sorted by user_id, ${SPILL_MEMORY} (spills)`, tight);
  } finally {
    small.close();
  }
} finally {
  engine.close();
  rmSync(root, { recursive: true, force: true });
}

/** Bytes of the files directly in `dir` (DuckDB's spill files); 0 when it is missing. */
function dirBytes(dir: string): number {
  try {
    return readdirSync(dir).reduce((n, name) => n + statSync(join(dir, name)).size, 0);
  } catch {
    return 0;
  }
}
