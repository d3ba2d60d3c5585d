// bench/maintenance: what table maintenance (issue 28) does for a table that
// is appended to as a sink rolls, in one run on one private stack, beside the
// floor it stands on.
//   - commit p50 over the first 100 and over the last 100 of BENCH_COMMITS
//     appends (default 5,000) to one table with maintenance on — the stack's
//     own maintenance worker, queued by the catalog's commit path when a
//     commit crosses a rule (packages/queues maintenance-rules.ts) — target:
//     last / first ≤ 1.2; and to another table with maintenance off, for
//     contrast (today's growth). A commit is timed as a roll lives it: the
//     load with vended credentials, one Parquet file of a few rows written
//     and uploaded, the manifest and manifest list built on the head
//     (@floe/iceberg buildAppend) and uploaded, the commit; a 409 (a
//     maintenance commit got in first) reloads and rebuilds inside the same
//     commit's time, as services/roller-worker/src/commit-append.ts does
//   - the maintained table after min(2,000, BENCH_COMMITS) rolls and at the
//     end — once the runs its commits queued are done, and again after one
//     sweep (queued by the bench: what the hourly sweep finds) — judged after
//     the sweep: at most 20 snapshots, its files bin-packed (fewer than the
//     16 that queue a compaction), its manifests merged (at most the 16 that
//     are merged), its commit p50 within 1.2× of its first (fresh) window's
//   - compaction rows/s: BENCH_COMPACT_FILES (40) files of BENCH_COMPACT_ROWS
//     (25,000) rows (a target of BENCH_COMPACT_TARGET_MB, else 128 MB: a
//     smaller one makes several groups), compacted in this process by the worker's own runner
//     (services/maintenance-worker/src/runs/compact.ts: download, engine
//     rewrite, upload, replace commit through the catalog), beside the
//     engine's own read-plus-write of the same files: the files fetched from
//     the store (as many at once as the worker fetches), DuckDB's plain COPY
//     of them through engine.query, its output put back (the store floor;
//     target ≥ 0.7 of it — the locked-down engine has no httpfs, so its only
//     read of a stored file is a fetch and a local read); the COPY alone on
//     local files and engine.rewriteDataFiles are printed beside it; files
//     and bytes before and after
//   - each table's snapshots, data files, manifests and bytes, and the
//     maintenance runs the worker recorded (maintenance_runs, read from
//     Postgres: the test warehouse belongs to no organisation, so the
//     gateway's GET /v1/table/maintenance cannot show it)
//
// Maintenance off: the stack's maintenance worker is paused with SIGSTOP for
// the compaction measurement and the off table's commits, and resumed with
// SIGCONT afterwards. The jobs the catalog queued for those tables meanwhile
// then run (after both were measured): the bench waits until the maintenance
// queue is idle — no job waiting, active or retrying, no run `running` —
// before the maintained table's first commit, and prints how long that
// catch-up took. BENCH_OFF_CATCHUP=0 drops the off table before resuming
// instead (its job then fails at once): the catch-up of a long-unmaintained
// table reads every expired snapshot's manifest list. The hourly sweep is
// moved out of the run (FLOE_MAINTENANCE_SWEEP_SECONDS=86400): every run
// measured here was queued by a commit, but for the one sweep the bench
// queues at the end. BENCH_ROLL_GAP_MS (default 0: back to back) spaces the
// maintained table's commits as a sink's rolls are spaced (the gap untimed).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { Queue } from 'bullmq';
import pg from 'pg';
import { Agent, request, setGlobalDispatcher } from 'undici';
import { CatalogClient, toLoadTableResult, vendedCredentials, type LoadTableResult } from '@floe/catalog-client';
import { warehouseTokenSource } from '@floe/catalogs/catalog-tokens';
import { prismaOver } from '@floe/db';
import { openEngine, type DataFileInput } from '@floe/engine';
import {
  MAIN_BRANCH, buildAppend, mapLimited, currentSchema, currentSnapshot, defaultSpec, lastSequenceNumber, newSnapshotId, parquetDataFile, parseJson,
  stringifyJson, writeParquetDataFile, type Schema, type TableMetadata, type WrittenParquet,
} from '@floe/iceberg';
import {
  COMPACT_TRIGGER_FILES, MAINTENANCE_DEFAULTS, MAINTENANCE_QUEUE, MAINTENANCE_SWEEP_JOB_OPTIONS, MANIFEST_MIN_COUNT_TO_MERGE, queueConnection, queuePrefix,
} from '@floe/queues';
import { parseS3Location } from '@floe/storage';
import { holdCommitGate } from '@floe/db/commit-gate';
import { useLocalCeph } from '../lib/stack-api';
import { joinPrivateStackEnv, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';

setGlobalDispatcher(new Agent({ keepAliveTimeout: 30_000, connections: 16 }));

const COMMITS = Number(process.env.BENCH_COMMITS ?? 5000);
const WINDOW = Math.min(100, Math.floor(COMMITS / 2));
const SINK_ROLLS = Math.min(2000, COMMITS);
const ROWS_PER_COMMIT = 5;
const COMPACT_FILES = Number(process.env.BENCH_COMPACT_FILES ?? 40);
const COMPACT_ROWS = Number(process.env.BENCH_COMPACT_ROWS ?? 25_000);
/** The compaction table's target file size (BENCH_COMPACT_TARGET_MB, else the catalog's 128 MB): a smaller one makes several groups. */
const COMPACT_TARGET_BYTES = Number(process.env.BENCH_COMPACT_TARGET_MB ?? 0) * 1024 * 1024 || MAINTENANCE_DEFAULTS.target_file_size_mb * 1024 * 1024;
const FLOOR_REPEATS = 3;
const IDLE_TIMEOUT_S = Number(process.env.BENCH_IDLE_TIMEOUT_S ?? 1800);
const OFF_CATCHUP = process.env.BENCH_OFF_CATCHUP !== '0';
const ROLL_GAP_MS = Number(process.env.BENCH_ROLL_GAP_MS ?? 0);
const MAX_COMMIT_TRIES = 20;
const TARGET_COMMIT_RATIO = 1.2;
const TARGET_COMPACTION = 0.7;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

/** A sink table's shape: an event id, a message, a timestamp. */
const schema: Schema = { type: 'struct', 'schema-id': 0, fields: [
  { id: 1, name: 'id', required: false, type: 'long' },
  { id: 2, name: 'msg', required: false, type: 'string' },
  { id: 3, name: 'ts', required: false, type: 'timestamptz' },
  { id: 4, name: 'user_id', required: false, type: 'string' },
  { id: 5, name: 'score', required: false, type: 'double' },
] };
const T0 = 1_790_000_000_000_000n;
const rowOf = (i: number) => ({ id: BigInt(i), msg: `event ${i} from device-${i % 97}`, ts: T0 + BigInt(i) * 1000n, user_id: `user-${(i * 7919) % 50_000}`, score: (i % 1000) / 10 });

await useLocalCeph();
const { adminStorage } = await import('../../tests/support/store');
const { createTestWarehouse, removeTestWarehouse } = await import('../../tests/support/warehouse');
const load0 = loadAverage();

const { state, stateFile } = await startPrivateStack('bench-maintenance', { FLOE_LOG_LEVEL: 'warn', FLOE_MAINTENANCE_SWEEP_SECONDS: '86400' });
const workerPid = state.services['maintenance-worker'].pid;
const pool = new pg.Pool({ connectionString: state.database_url, max: 2 });
const queue = new Queue(MAINTENANCE_QUEUE, { connection: queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), prefix: queuePrefix(state.redis_prefix) });
const scratch = mkdtempSync(join(tmpdir(), 'floe-bench-maintenance-'));
let paused = false;
const pauseWorker = () => { process.kill(workerPid, 'SIGSTOP'); paused = true; };
const resumeWorker = () => { process.kill(workerPid, 'SIGCONT'); paused = false; };
const wh = await createTestWarehouse(state);
let finished = false;
try {
  // The worker's own pieces, in this process, as the warehouse's own identity (the compaction measurement).
  Object.assign(process.env, joinPrivateStackEnv(state), { FLOE_LOG_LEVEL: 'warn' });
  const { loadConfig } = await import('@floe/config');
  const { createLogger } = await import('@floe/http');
  const { accessOf } = await import('@floe/catalog-client');
  const { figuresOf } = await import('../../services/maintenance-worker/src/figures');
  const { readHeadFiles } = await import('../../services/maintenance-worker/src/runs/head');
  const { compact, DOWNLOADS_AT_ONCE } = await import('../../services/maintenance-worker/src/runs/compact');
  const config = loadConfig();
  const store = adminStorage();

  const cat = state.catalog_url;
  /** A catalog token of the read-write credential, minted again a minute before it runs out (a full run outlasts one). */
  const mint = async () => {
    const r = await request(`${cat}/v1/oauth/tokens`, {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: wh.rw.clientId, client_secret: wh.rw.clientSecret }).toString(),
    });
    const body = (await r.body.json()) as { access_token: string; expires_in: number };
    return { token: body.access_token, until: Date.now() + (body.expires_in - 60) * 1000 };
  };
  let session = await mint();
  const tableUrl = (t: string) => `${cat}/v1/${wh.id}/namespaces/bench/tables/${t}`;
  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, body?: string, extra: Record<string, string> = {}) => {
    if (Date.now() > session.until) session = await mint();
    const r = await request(url, { method, headers: { Authorization: `Bearer ${session.token}`, 'Content-Type': 'application/json', ...extra }, body });
    return { status: r.statusCode, text: await r.body.text() };
  };
  const ok = async (method: 'GET' | 'POST' | 'DELETE', url: string, body?: string, extra: Record<string, string> = {}) => {
    const r = await call(method, url, body, extra);
    if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${r.text.slice(0, 300)}`);
    return r.text;
  };
  /** The table as the catalog answers it, every id exact (a JSON parse that keeps longs); with `vend`, with a storage session. */
  const loadTable = async (t: string, vend: boolean): Promise<LoadTableResult> =>
    toLoadTableResult(parseJson(await ok('GET', tableUrl(t), undefined, vend ? { 'X-Iceberg-Access-Delegation': 'vended-credentials' } : {})));
  const figuresNow = async (t: string) => {
    const loaded = await loadTable(t, true);
    return figuresOf(accessOf({ storage: store }, { warehouseId: wh.id, namespace: ['bench'], table: t }, loaded));
  };

  await ok('POST', `${cat}/v1/${wh.id}/namespaces`, JSON.stringify({ namespace: ['bench'] }));
  for (const name of ['compact', 'off', 'on']) {
    const properties = name === 'compact' ? { 'write.target-file-size-bytes': String(COMPACT_TARGET_BYTES) } : {};
    await ok('POST', `${cat}/v1/${wh.id}/namespaces/bench/tables`, JSON.stringify({ name, schema, properties }));
  }

  const serverErrors: Array<{ table: string; status: number; requestId: string | null }> = [];
  /**
   * One append as a roll makes it: load with a storage session, upload the data files (beside the first build),
   * build the manifest and list on the head, upload them, commit; on 409 reload and rebuild. Timed whole.
   */
  const append = async (t: string, makeFiles: (m: TableMetadata) => WrittenParquet[]) => {
    const t0 = performance.now();
    const loaded = await loadTable(t, true);
    const loadMs = performance.now() - t0;
    let m = loaded.metadata;
    const creds = vendedCredentials(loaded);
    const s3 = store.s3As(creds);
    const objects = store.objectsAs(creds);
    const put = (path: string, bytes: Uint8Array) => {
      const { bucket, key } = parseS3Location(path, 'bench put');
      return objects.put(bucket, key, bytes);
    };
    const read = async (path: string) => {
      const { bucket, key } = parseS3Location(path, 'bench read');
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return new Uint8Array(await out.Body!.transformToByteArray());
    };
    const written = makeFiles(m);
    const paths = written.map(() => `${m.location}/data/bench-${randomUUID()}.parquet`);
    const dataUpload = Promise.all(written.map((w, i) => put(paths[i], w.bytes)));
    dataUpload.catch(() => undefined);
    const files = written.map((w, i) => parquetDataFile(paths[i], w.stats));
    let commitMs = 0;
    for (let tries = 1; ; tries++) {
      const parent = currentSnapshot(m) ?? null;
      const snapshotId = newSnapshotId();
      const built = await buildAppend({
        formatVersion: m['format-version'], schema: currentSchema(m), spec: defaultSpec(m), parent,
        lastSequenceNumber: lastSequenceNumber(m), nextRowId: m['format-version'] >= 3 ? m['next-row-id'] ?? 0n : undefined,
        files, snapshotId, read, summary: { 'engine-name': 'floe-bench' },
        manifestPath: `${m.location}/metadata/${randomUUID()}-m0.avro`,
        manifestListPath: `${m.location}/metadata/snap-${snapshotId}-${randomUUID()}.avro`,
      });
      await Promise.all([dataUpload, ...built.uploads.map((u) => put(u.path, u.bytes))]);
      const c0 = performance.now();
      const r = await call('POST', tableUrl(t), stringifyJson({
        requirements: [{ type: 'assert-ref-snapshot-id', ref: MAIN_BRANCH, 'snapshot-id': parent ? parent['snapshot-id'] : null }],
        updates: [
          { action: 'add-snapshot', snapshot: built.snapshot },
          { action: 'set-snapshot-ref', 'ref-name': MAIN_BRANCH, type: 'branch', 'snapshot-id': snapshotId },
        ],
      }));
      commitMs += performance.now() - c0;
      if (r.status === 200) return { ms: performance.now() - t0, loadMs, commitMs, tries };
      if ((r.status !== 409 && r.status < 500) || tries >= MAX_COMMIT_TRIES) throw new Error(`commit to ${t}: ${r.status} ${r.text.slice(0, 300)}`);
      m = (await loadTable(t, false)).metadata;
      if (r.status >= 500) {
        // As a roll does: the commit may have landed; if not, it is tried again. Each one is reported.
        serverErrors.push({ table: t, status: r.status, requestId: /"request_id":"([^"]+)"/.exec(r.text)?.[1] ?? null });
        if ((m.snapshots ?? []).some((x) => x['snapshot-id'] === snapshotId)) return { ms: performance.now() - t0, loadMs, commitMs, tries };
      }
    }
  };

  type Sample = Awaited<ReturnType<typeof append>>;
  /** COMMITS small appends to `t`, each timed; `at` is called (untimed) after the commit of that number. */
  const rolls = async (t: string, at: Record<number, () => Promise<void>> = {}, gapMs = 0) => {
    const samples: Sample[] = [];
    const ends: number[] = [];
    const started = performance.now();
    for (let i = 1; i <= COMMITS; i++) {
      samples.push(await append(t, (m) => [writeParquetDataFile({ schema: currentSchema(m), rows: Array.from({ length: ROWS_PER_COMMIT }, (_, k) => rowOf(i * ROWS_PER_COMMIT + k)) })]));
      if (i % 500 === 0) say(`${t}: ${i} commits, last p50 ${pct(samples.slice(-WINDOW).map((s) => s.ms), 50).toFixed(1)} ms, load ${loadAverage()}`);
      ends.push(Date.now());
      await at[i]?.();
      if (gapMs) await sleep(gapMs);
    }
    return { samples, ends, seconds: (performance.now() - started) / 1000 };
  };

  /** No maintenance job waiting, active or waiting to retry, and no run recorded as running: twice, a second apart. */
  const waitIdle = async (what: string) => {
    const t0 = performance.now();
    let quiet = 0;
    while (quiet < 2) {
      if ((performance.now() - t0) / 1000 > IDLE_TIMEOUT_S) {
        say(`the maintenance queue was not idle after ${IDLE_TIMEOUT_S} s (${what}): measuring as it is`);
        break;
      }
      await sleep(1000);
      const counts = await queue.getJobCounts('waiting', 'active', 'prioritized');
      const retrying = (await queue.getJobs(['delayed'])).filter((j) => j.name === 'maintain').length;
      const running = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM maintenance_runs WHERE warehouse_id = $1 AND status = 'running'`, [wh.id])).rows[0].n;
      quiet = Object.values(counts).every((n) => n === 0) && retrying === 0 && running === 0 ? quiet + 1 : 0;
    }
    return (performance.now() - t0) / 1000;
  };

  // 1. Compaction, with the worker paused (it must not compact the table first).
  pauseWorker();
  const g0 = performance.now();
  let next = 0;
  const perAppend = 10;
  for (let f = 0; f < COMPACT_FILES; f += perAppend) {
    await append('compact', (m) => Array.from({ length: Math.min(perAppend, COMPACT_FILES - f) }, () =>
      writeParquetDataFile({ schema: currentSchema(m), rows: Array.from({ length: COMPACT_ROWS }, () => rowOf(next++)) })));
  }
  say(`compaction table: ${COMPACT_FILES} files of ${COMPACT_ROWS.toLocaleString('en-US')} rows written and committed in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
  const ref = { warehouseId: wh.id, namespace: ['bench'], table: 'compact' };
  const access = accessOf({ storage: store }, ref, await loadTable('compact', true));
  const compactBefore = await figuresOf(access);
  /** Each step of the compaction run: how many calls, their summed ms (overlapping calls sum past the wall time), and the span from the first call's start to the last one's end. */
  const steps = new Map<string, { n: number; ms: number; from: number; to: number }>();
  const timed = <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
    const t = performance.now();
    try {
      return await f(...a);
    } finally {
      const end = performance.now();
      const s = steps.get(name) ?? { n: 0, ms: 0, from: t, to: end };
      steps.set(name, { n: s.n + 1, ms: s.ms + end - t, from: Math.min(s.from, t), to: Math.max(s.to, end) });
    }
  };
  const rows = Number(currentSnapshot(access.metadata)?.summary?.['total-records'] ?? 0);
  const engine = await openEngine({ scratchDir: join(scratch, 'engine'), memoryLimit: config.engine.memoryLimit, threads: config.engine.threads });
  const floorMs: number[] = [];
  const rewriteMs: number[] = [];
  const getMs: number[] = [];
  const putMs: number[] = [];
  let planMs = 0;
  let applyMs = 0;
  let compactAfter;
  try {
    // the same files, local, for the engine's own read-plus-write
    const head = (await readHeadFiles(access))!;
    const local: DataFileInput[] = [];
    for (const [i, f] of head.data.entries()) {
      const localPath = join(engine.scratchDir, 'floor-in', `${i}.parquet`);
      await access.download(f.file.file_path, localPath);
      local.push({ localPath, filePath: f.file.file_path, sequenceNumber: f.sequenceNumber, firstRowId: f.firstRowId });
    }
    const list = local.map((f) => `'${f.localPath}'`).join(', ');
    let n = 0;
    const storeCopies: string[] = [];
    for (let r = 0; r <= FLOOR_REPEATS; r++) {
      // the store's own share of a compaction: every input fetched (as many at once as the
      // worker fetches), and the COPY's output put back
      let t = performance.now();
      await mapLimited(head.data, DOWNLOADS_AT_ONCE, (f) => access.read(f.file.file_path));
      if (r > 0) getMs.push(performance.now() - t);
      const copied = join(engine.scratchDir, `floor-${n++}.parquet`);
      t = performance.now();
      await engine.query(`COPY (SELECT * FROM read_parquet([${list}])) TO '${copied}' (FORMAT parquet, COMPRESSION zstd)`);
      if (r > 0) floorMs.push(performance.now() - t); // r = 0 warms up
      storeCopies.push(`${access.location}/bench-floor/${randomUUID()}.parquet`);
      t = performance.now();
      await access.upload(copied, storeCopies.at(-1)!);
      if (r > 0) putMs.push(performance.now() - t);
      const outputDir = join(engine.scratchDir, `rewrite-${n++}`);
      t = performance.now();
      await engine.rewriteDataFiles({ schema: currentSchema(access.metadata), files: local, targetFileSizeBytes: COMPACT_TARGET_BYTES, outputDir, prefix: 'c' });
      if (r > 0) rewriteMs.push(performance.now() - t);
      rmSync(outputDir, { recursive: true, force: true });
    }
    rmSync(join(engine.scratchDir, 'floor-in'), { recursive: true, force: true });
    await access.remove(storeCopies);

    // the worker's compaction runner, on the table in the store, committing through the catalog; its steps timed
    const catalog = new CatalogClient(config, warehouseTokenSource(prismaOver(pool), config));
    const timedCatalog = Object.assign(catalog, { commitTable: timed('commit', catalog.commitTable.bind(catalog)), loadTable: timed('load', catalog.loadTable.bind(catalog)) });
    const timedEngine = { ...engine, rewriteDataFiles: timed('rewrite', engine.rewriteDataFiles) };
    const timedAccess = { ...access, download: timed('download', access.download), upload: timed('upload', access.upload), read: timed('read', access.read), put: timed('put', access.put) };
    const ctx = {
      catalog: timedCatalog, logger: createLogger('bench-maintenance', 'warn'), nowMs: Date.now(),
      orphanAgeMs: config.maintenance.orphanAgeSeconds * 1000, engine: async () => timedEngine,
      holdGate: <T>(r: typeof ref, fn: () => Promise<T>) => holdCommitGate(pool, { warehouseId: r.warehouseId, namespace: r.namespace, name: r.table }, fn),
    };
    let t = performance.now();
    const plan = await compact.plan(ctx, timedAccess);
    planMs = performance.now() - t;
    if (plan.nothing) throw new Error(`compaction planned nothing: ${plan.reason}`);
    steps.clear();
    t = performance.now();
    await compact.apply(ctx, timedAccess, plan);
    applyMs = performance.now() - t;
    compactAfter = await figuresNow('compact');
  } finally {
    engine.close();
  }

  // 2. Maintenance off: the worker stays paused.
  say(`maintenance off: ${COMMITS} commits to bench.off (worker paused), load ${loadAverage()}`);
  const off = await rolls('off');
  const offFigures = await figuresNow('off');
  if (!OFF_CATCHUP) await ok('DELETE', tableUrl('off'));
  resumeWorker();
  const catchupSeconds = await waitIdle('after resuming the worker');
  say(`worker resumed: the queue was idle after ${catchupSeconds.toFixed(1)} s${OFF_CATCHUP ? ' (the off table\'s catch-up included)' : ''}`);
  const offAtRest = OFF_CATCHUP ? await figuresNow('off') : null;

  // 3. Maintenance on.
  say(`maintenance on: ${COMMITS} commits to bench.on, load ${loadAverage()}`);
  let atSink: Awaited<ReturnType<typeof figuresNow>> | null = null;
  const on = await rolls('on', { [SINK_ROLLS]: async () => { atSink = await figuresNow('on'); } }, ROLL_GAP_MS);
  const onFigures = await figuresNow('on');
  const settleSeconds = await waitIdle('after the last commit to bench.on');
  const onAtRest = await figuresNow('on');
  // What the hourly sweep then finds: one sweep, queued now, and the runs it queues.
  await queue.add('sweep', {}, MAINTENANCE_SWEEP_JOB_OPTIONS);
  const sweepSeconds = await waitIdle('after one sweep');
  const onAfterSweep = await figuresNow('on');

  // 4. What the worker recorded.
  const runs = (await pool.query<{ table_name: string; kind: string; status: string; n: number; med: number; total: number }>(
    `SELECT table_name, kind, status, count(*)::int AS n,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at))::float AS med,
            sum(extract(epoch FROM finished_at - started_at))::float AS total
       FROM maintenance_runs WHERE warehouse_id = $1 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, [wh.id])).rows;
  const failures = (await pool.query<{ table_name: string; kind: string; reason: string; n: number }>(
    `SELECT table_name, kind, left(reason, 160) AS reason, count(*)::int AS n FROM maintenance_runs
      WHERE warehouse_id = $1 AND status = 'failed' GROUP BY 1, 2, 3 ORDER BY 4 DESC LIMIT 8`, [wh.id])).rows;
  const failedJobs = await queue.getJobs(['failed']);
  const timeline = (await pool.query<{ kind: string; status: string; started: Date; finished: Date | null; reason: string | null }>(
    `SELECT kind, status, started_at AS started, finished_at AS finished, left(reason, 110) AS reason FROM maintenance_runs
      WHERE warehouse_id = $1 AND table_name = 'on' ORDER BY started_at, id`, [wh.id])).rows;

  // 5. The report.
  const w = (s: string, n: number) => s.padStart(n);
  const first = (s: Sample[]) => s.slice(0, WINDOW);
  const last = (s: Sample[]) => s.slice(-WINDOW);
  const p50 = (s: Sample[], k: keyof Sample = 'ms') => pct(s.map((x) => x[k]), 50);
  const ratioOf = (s: Sample[]) => p50(last(s)) / p50(first(s));
  console.log(`\nbench/maintenance — one run on one private stack, loopback, this machine (${availableParallelism()} cores; load average ${load0} at the start, ${loadAverage()} at the end)\n`);
  console.log(`commits: ${COMMITS} appends per table, each one Parquet file of ${ROWS_PER_COMMIT} rows, ${ROLL_GAP_MS ? `${ROLL_GAP_MS} ms apart on the maintained table (untimed), back to back on the other` : 'back to back'}; p50 of commits 1–${WINDOW} and ${COMMITS - WINDOW + 1}–${COMMITS}; ms`);
  console.log(`${'table'.padEnd(34)}${w('first p50', 10)}${w('last p50', 10)}${w('ratio', 8)}${w('last p99', 10)}${w('409s', 7)}${w('wall s', 9)}`);
  for (const [name, r] of [['maintenance off (worker paused)', off], ['maintenance on', on]] as const) {
    const retries = r.samples.reduce((k, s) => k + s.tries - 1, 0);
    console.log(`${name.padEnd(34)}${w(p50(first(r.samples)).toFixed(1), 10)}${w(p50(last(r.samples)).toFixed(1), 10)}${w(`${ratioOf(r.samples).toFixed(2)}×`, 8)}${w(pct(last(r.samples).map((s) => s.ms), 99).toFixed(1), 10)}${w(String(retries), 7)}${w(r.seconds.toFixed(0), 9)}`);
    console.log(`${'  p50 of its load (vended)'.padEnd(34)}${w(p50(first(r.samples), 'loadMs').toFixed(1), 10)}${w(p50(last(r.samples), 'loadMs').toFixed(1), 10)}`);
    console.log(`${'  p50 of its POST (409s included)'.padEnd(34)}${w(p50(first(r.samples), 'commitMs').toFixed(1), 10)}${w(p50(last(r.samples), 'commitMs').toFixed(1), 10)}`);
  }

  type Figures = Awaited<ReturnType<typeof figuresNow>>;
  const figLine = (name: string, f: Figures | null) => console.log(f === null ? `${name.padEnd(44)}${w('(dropped)', 10)}`
    : `${name.padEnd(44)}${w(String(f.snapshots), 10)}${w(String(f.data_files), 11)}${w(String(f.manifests), 11)}${w(String(f.data_bytes), 14)}${w(String(f.metadata_files), 10)}`);
  console.log(`\n${'table figures'.padEnd(44)}${w('snapshots', 10)}${w('data files', 11)}${w('manifests', 11)}${w('total bytes', 14)}${w('metadata', 10)}`);
  figLine('off, after its last commit', offFigures);
  figLine('off, after the worker caught up', offAtRest);
  figLine(`on, after roll ${SINK_ROLLS} (runs in flight)`, atSink);
  figLine('on, after its last commit', onFigures);
  figLine(`on, at rest (queue idle ${settleSeconds.toFixed(0)} s later)`, onAtRest);
  figLine(`on, after one sweep (idle ${sweepSeconds.toFixed(0)} s later)`, onAfterSweep);

  console.log(`\nmaintenance runs recorded (maintenance_runs): table kind status — count, median s, total s`);
  for (const r of runs) console.log(`  ${r.table_name.padEnd(8)} ${r.kind.padEnd(18)} ${r.status.padEnd(23)} ${w(String(r.n), 5)} ${w(r.med.toFixed(2), 8)} ${w(r.total.toFixed(1), 8)}`);
  /** The commit a moment falls after (0: before the first; past the last: "end+"). */
  const commitAt = (d: Date | null) => {
    if (!d) return '—';
    const n = on.ends.filter((e) => e <= d.getTime()).length;
    return n >= COMMITS && d.getTime() > on.ends[COMMITS - 1] ? `end+${((d.getTime() - on.ends[COMMITS - 1]) / 1000).toFixed(0)}s` : `#${n}`;
  };
  console.log(`  bench.on's runs in order: kind status — started after commit, finished after commit, s; reason (at most 40 shown: the first 20 and the last 20)`);
  const shown = timeline.length > 40 ? [...timeline.slice(0, 20), null, ...timeline.slice(-20)] : timeline;
  for (const r of shown) {
    if (!r) { console.log(`    … ${timeline.length - 40} more`); continue; }
    const secs = r.finished ? ((r.finished.getTime() - r.started.getTime()) / 1000).toFixed(1) : '—';
    console.log(`    ${r.kind.padEnd(18)} ${r.status.padEnd(23)} ${commitAt(r.started).padStart(9)} ${commitAt(r.finished).padStart(9)} ${secs.padStart(7)}  ${r.reason ?? ''}`);
  }
  for (const f of failures) console.log(`  failed ${f.n}× ${f.table_name} ${f.kind}: ${f.reason}`);
  console.log(`  BullMQ maintain jobs left failed: ${failedJobs.length}${failedJobs.length ? ` (${[...new Set(failedJobs.map((j) => j.failedReason.slice(0, 120)))].join('; ')})` : ''}`);
  console.log(`  5xx answers to the bench's commits (each reloaded, and tried again unless it had landed): ${serverErrors.length}`);
  const catalogLog = existsSync(state.services.catalog.log) ? readFileSync(state.services.catalog.log, 'utf8').split('\n') : [];
  for (const e of serverErrors.slice(0, 3)) {
    const line = e.requestId ? catalogLog.find((l) => l.includes(e.requestId!) && /error/i.test(l)) : undefined;
    console.log(`    ${e.table} ${e.status} ${e.requestId ?? ''}: ${line?.slice(0, 400) ?? '(not found in the catalog log)'}`);
  }
  console.log(`  the worker's catch-up after SIGCONT: ${catchupSeconds.toFixed(1)} s${OFF_CATCHUP ? '' : ' (the off table dropped first)'}`);

  const floorRate = rows / (pct(floorMs, 50) / 1000);
  const rewriteRate = rows / (pct(rewriteMs, 50) / 1000);
  const compactRate = rows / (applyMs / 1000);
  const mb = (b: number | null) => (b === null ? '?' : `${(b / 1e6).toFixed(1)} MB`);
  console.log(`\ncompaction: ${rows.toLocaleString('en-US')} rows in ${compactBefore.data_files} files (${mb(compactBefore.data_bytes)}); engine ${config.engine.threads} threads, ${config.engine.memoryLimit} (the worker's settings); target file size ${mb(COMPACT_TARGET_BYTES)}`);
  console.log(`  ${'floor: DuckDB COPY of the same local files (engine.query)'.padEnd(66)}${w(Math.round(floorRate).toLocaleString('en-US'), 12)} rows/s  (median of ${FLOOR_REPEATS}, ${pct(floorMs, 50).toFixed(0)} ms)`);
  const storeFloorMs = pct(getMs, 50) + pct(floorMs, 50) + pct(putMs, 50);
  const storeFloorRate = rows / (storeFloorMs / 1000);
  console.log(`  ${`store floor: the inputs fetched (${DOWNLOADS_AT_ONCE} at once), the COPY, its output put`.padEnd(66)}${w(Math.round(storeFloorRate).toLocaleString('en-US'), 12)} rows/s  (medians ${pct(getMs, 50).toFixed(0)} + ${pct(floorMs, 50).toFixed(0)} + ${pct(putMs, 50).toFixed(0)} ms, one after another)`);
  console.log(`  ${'engine.rewriteDataFiles on the same local files'.padEnd(66)}${w(Math.round(rewriteRate).toLocaleString('en-US'), 12)} rows/s  (median of ${FLOOR_REPEATS}, ${pct(rewriteMs, 50).toFixed(0)} ms)`);
  console.log(`  ${'compaction run: download, rewrite, upload, replace commit'.padEnd(66)}${w(Math.round(compactRate).toLocaleString('en-US'), 12)} rows/s  (${applyMs.toFixed(0)} ms; its plan ${planMs.toFixed(0)} ms more)`);
  console.log(`  the run's steps (calls, summed ms, first start to last end ms): ${[...steps].map(([k, v]) => `${k} ${v.n}× ${v.ms.toFixed(0)} ${(v.to - v.from).toFixed(0)}`).join(', ')}`);
  console.log(`  before: ${compactBefore.data_files} data files, ${mb(compactBefore.data_bytes)}, ${compactBefore.manifests} manifests; after: ${compactAfter!.data_files} data files, ${mb(compactAfter!.data_bytes)}, ${compactAfter!.manifests} manifests, ${compactAfter!.snapshots} snapshots`);

  const sink = onAfterSweep;
  const compactionRatio = compactRate / storeFloorRate;
  console.log(`\ntargets`);
  console.log(`  commit p50 ratio with maintenance on, last ${WINDOW} / first ${WINDOW}: ${ratioOf(on.samples).toFixed(2)}× (target ≤ ${TARGET_COMMIT_RATIO}): ${verdict(ratioOf(on.samples) <= TARGET_COMMIT_RATIO)}`);
  console.log(`  commit p50 ratio with maintenance off (contrast, no target): ${ratioOf(off.samples).toFixed(2)}×`);
  console.log(`  compaction rows/s / store floor rows/s: ${compactionRatio.toFixed(2)} (target ≥ ${TARGET_COMPACTION}): ${verdict(compactionRatio >= TARGET_COMPACTION)}; against the COPY of local files alone: ${(compactRate / floorRate).toFixed(2)}; rewriteDataFiles alone / that COPY: ${(rewriteRate / floorRate).toFixed(2)}`);
  console.log(`  the maintained table after ${COMMITS} rolls${COMMITS < 2000 ? ' (fewer than the 2,000 the issue names: BENCH_COMMITS)' : ''}, after one sweep:`);
  console.log(`    snapshots ${sink.snapshots} (target ≤ ${MAINTENANCE_DEFAULTS.max_snapshots}): ${verdict(sink.snapshots <= MAINTENANCE_DEFAULTS.max_snapshots)}`);
  console.log(`    data files ${sink.data_files}, bin-packed (target < ${COMPACT_TRIGGER_FILES}, the count that queues a compaction): ${verdict(sink.data_files !== null && sink.data_files < COMPACT_TRIGGER_FILES)}`);
  console.log(`    manifests ${sink.manifests}, merged (target ≤ ${MANIFEST_MIN_COUNT_TO_MERGE}, the count that is merged): ${verdict(sink.manifests !== null && sink.manifests <= MANIFEST_MIN_COUNT_TO_MERGE)}`);
  console.log(`    commit p50 within ${TARGET_COMMIT_RATIO}× of the fresh table's (its first ${WINDOW} commits): ${verdict(ratioOf(on.samples) <= TARGET_COMMIT_RATIO)}`);
  if (atSink) {
    const a: Figures = atSink;
    console.log(`    (after roll ${SINK_ROLLS}, runs in flight: ${a.snapshots} snapshots, ${a.data_files} data files, ${a.manifests} manifests)`);
  }
  finished = true;
} finally {
  if (paused) resumeWorker();
  await queue.close();
  await pool.end();
  rmSync(scratch, { recursive: true, force: true });
  await removeTestWarehouse(wh);
  // A run that failed keeps the stack's folder (its deployables' logs) to be read.
  await stopPrivateStack(stateFile, !finished);
  if (!finished) say(`the stack's logs are kept in ${state.services.catalog.log.replace(/\/[^/]+$/, '')}`);
}
