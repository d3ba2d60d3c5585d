// bench/scan-planning: what server-side scan planning (POST …/plan, issue 36)
// costs for a table of BENCH_FILES data files (default 10,000), in one run on
// one private stack, beside the floor it stands on.
//   - The table: BENCH_APPENDS (20) appends of BENCH_FILES / BENCH_APPENDS
//     files each, so the snapshot lists that many manifests, as a table fed by
//     many commits does; every file with column stats for its two columns
//     (ids in a range of their own, so a filter can rule out all but one).
//     Planning reads only manifests: the data files are named, not written.
//   - Timed, each the median of BENCH_RUNS (5): a full plan (submitted, as a
//     plan above FLOE_SCAN_PLAN_SYNC_FILES is, polled every 20 ms until
//     completed, then every page of tasks fetched), and a plan whose filter
//     leaves one file (polled the same way, its one task answered inline).
//   - The floor, beside each run: the bench's own read of the same manifest
//     list and manifests from the store, with the session the catalog vends,
//     as many at once as the planner reads (8), and their decoding
//     (@floe/iceberg readLiveFiles): what any planner must do. Printed: both
//     medians, the ratio floor / plan, and the bound docs/catalog.md states
//     (BOUND_MS for the full plan of 10,000 files), judged.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { toLoadTableResult, vendedCredentials } from '@floe/catalog-client';
import {
  MAIN_BRANCH, buildAppend, currentSnapshot, defaultSpec, currentSchema, lastSequenceNumber, newSnapshotId, parseJson, readLiveFiles, stringifyJson, toBinary,
  type DataFile, type Schema, type TableMetadata,
} from '@floe/iceberg';
import { parseS3Location } from '@floe/storage';
import { benchCatalog, stackApi, useLocalCeph } from '../lib/stack-api';
import { startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';

const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** The bound docs/catalog.md states for a full plan of 10,000 files, submitted to the last page fetched. */
const BOUND_MS = 1000;

const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const schema: Schema = { type: 'struct', 'schema-id': 0, fields: [
  { id: 1, name: 'id', required: false, type: 'long' },
  { id: 2, name: 'msg', required: false, type: 'string' },
] };
const ROWS_PER_FILE = 1000n;

/** A data file's entry: ids [i·1000, i·1000+999], its stats as a writer records them. */
function fileEntry(location: string, i: number): DataFile {
  const lo = BigInt(i) * ROWS_PER_FILE;
  return {
    content: 0, file_path: `${location}/data/bench-${i}-${randomUUID()}.parquet`, file_format: 'PARQUET', partition: {},
    record_count: ROWS_PER_FILE, file_size_in_bytes: 40_000n,
    column_sizes: new Map([[1, 8_000n], [2, 30_000n]]), value_counts: new Map([[1, ROWS_PER_FILE], [2, ROWS_PER_FILE]]),
    null_value_counts: new Map([[1, 0n], [2, 0n]]),
    lower_bounds: new Map([[1, toBinary('long', lo)], [2, toBinary('string', `event ${lo}`)]]),
    upper_bounds: new Map([[1, toBinary('long', lo + ROWS_PER_FILE - 1n)], [2, toBinary('string', `event ${lo + ROWS_PER_FILE - 1n}`)]]),
  };
}

await useLocalCeph();
const { orgAdminKey } = await import('../../tests/support/stack-org');
const { adminStorage } = await import('../../tests/support/store');
const load0 = loadAverage();
const { state, stateFile } = await startPrivateStack('bench-scan-planning', { FLOE_LOG_LEVEL: 'warn' });
let finished = false;
try {
  const started = performance.now();
  const apiKey = await orgAdminKey(state, 'bench');
  const api = stackApi(state, apiKey);
  const { warehouseId, catalogToken } = await benchCatalog(state, api, 'bench_plan');
  // Every file counts as big, so no compaction run rewrites the table while it is planned.
  await api('POST', '/v1/tables', { warehouse_id: warehouseId, namespace: 'bench', name: 'wide', schema: { type: schema.type, fields: schema.fields }, properties: { 'write.target-file-size-bytes': '1' } });
  const tableUrl = `${state.catalog_url}/v1/${warehouseId}/namespaces/bench/tables/wide`;
  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, body?: string, extra: Record<string, string> = {}) => {
    const r = await request(url, { method, headers: { Authorization: `Bearer ${catalogToken}`, 'Content-Type': 'application/json', ...extra }, body });
    const text = await r.body.text();
    if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${text.slice(0, 300)}`);
    return text;
  };
  const store = adminStorage();
  const open = async () => {
    const loaded = toLoadTableResult(parseJson(await call('GET', tableUrl, undefined, { 'X-Iceberg-Access-Delegation': 'vended-credentials' })));
    return { metadata: loaded.metadata as TableMetadata, objects: store.objectsAs(vendedCredentials(loaded)) };
  };

  // 1. The table: APPENDS snapshots of FILES / APPENDS files each, committed as an engine commits.
  const perAppend = Math.ceil(FILES / APPENDS);
  for (let a = 0; a < APPENDS; a++) {
    const { metadata: m, objects } = await open();
    const files = Array.from({ length: Math.min(perAppend, FILES - a * perAppend) }, (_, k) => fileEntry(m.location, a * perAppend + k));
    const parent = currentSnapshot(m) ?? null;
    const snapshotId = newSnapshotId();
    const built = await buildAppend({
      formatVersion: m['format-version'], schema: currentSchema(m), spec: defaultSpec(m), parent, lastSequenceNumber: lastSequenceNumber(m),
      files, snapshotId, summary: { 'engine-name': 'floe-bench' },
      read: async (path) => {
        const { bucket, key } = parseS3Location(path, 'bench read');
        return new Uint8Array(await objects.getBytes(bucket, key));
      },
      manifestPath: `${m.location}/metadata/${randomUUID()}-m0.avro`, manifestListPath: `${m.location}/metadata/snap-${snapshotId}-${randomUUID()}.avro`,
    });
    for (const u of built.uploads) {
      const { bucket, key } = parseS3Location(u.path, 'bench put');
      await objects.put(bucket, key, u.bytes);
    }
    await call('POST', tableUrl, stringifyJson({
      requirements: [{ type: 'assert-ref-snapshot-id', ref: MAIN_BRANCH, 'snapshot-id': parent ? parent['snapshot-id'] : null }],
      updates: [{ action: 'add-snapshot', snapshot: built.snapshot }, { action: 'set-snapshot-ref', 'ref-name': MAIN_BRANCH, type: 'branch', 'snapshot-id': snapshotId }],
    }));
  }
  say(`a table of ${FILES.toLocaleString('en-US')} data files in ${APPENDS} manifests, set up in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // 2. The plan, through the route: submitted, polled, every page fetched, then cancelled (its pages let go).
  const planned = async (filter: unknown) => {
    const t0 = performance.now();
    const first = JSON.parse(await call('POST', `${tableUrl}/plan`, JSON.stringify(filter === undefined ? {} : { filter }))) as any;
    const planId: string = first['plan-id'];
    let answer = first;
    while (answer.status === 'submitted') {
      await sleep(20);
      answer = JSON.parse(await call('GET', `${tableUrl}/plan/${planId}`));
    }
    if (answer.status !== 'completed') throw new Error(`the plan ended ${JSON.stringify(answer).slice(0, 300)}`);
    let tasks = answer['file-scan-tasks']?.length ?? 0;
    for (const task of answer['plan-tasks'] ?? []) tasks += JSON.parse(await call('POST', `${tableUrl}/tasks`, JSON.stringify({ 'plan-task': task })))['file-scan-tasks'].length;
    await call('DELETE', `${tableUrl}/plan/${planId}`);
    return { ms: performance.now() - t0, tasks };
  };

  // 3. The floor: the same manifests read from the store and decoded, with the vended session.
  const floor = async () => {
    const { metadata: m, objects } = await open();
    const t0 = performance.now();
    const live = await readLiveFiles(async (path) => {
      const { bucket, key } = parseS3Location(path, 'bench read');
      return new Uint8Array(await objects.getBytes(bucket, key));
    }, currentSnapshot(m)!);
    const ms = performance.now() - t0;
    if (live!.data.length !== FILES) throw new Error(`the floor read ${live!.data.length} files, expected ${FILES}`);
    return ms;
  };

  const one = { type: 'eq', left: { type: 'reference', name: 'id' }, right: Number(ROWS_PER_FILE) * Math.floor(FILES / 2) + 7 };
  await planned(undefined); // warms the catalog's path and the store's
  await floor();
  const full: number[] = [];
  const pruned: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const f = await planned(undefined);
    if (f.tasks !== FILES) throw new Error(`the full plan answered ${f.tasks} tasks, expected ${FILES}`);
    full.push(f.ms);
    const p = await planned(one);
    if (p.tasks !== 1) throw new Error(`the pruned plan answered ${p.tasks} tasks, expected 1`);
    pruned.push(p.ms);
    floors.push(await floor());
  }
  const fullMs = median(full);
  const floorMs = median(floors);
  say(`load average before: ${load0}; after: ${loadAverage()}`);
  say(`full plan of ${FILES.toLocaleString('en-US')} files (submitted, polled, ${Math.ceil(FILES / 1000)} pages fetched): median ${fullMs.toFixed(0)} ms over ${RUNS} runs`);
  say(`plan pruned to 1 file: median ${median(pruned).toFixed(0)} ms`);
  say(`floor (manifest list and ${APPENDS} manifests read and decoded by the bench): median ${floorMs.toFixed(0)} ms`);
  say(`ratio floor / full plan: ${(floorMs / fullMs).toFixed(2)}`);
  const judged = FILES === 10_000 ? (fullMs <= BOUND_MS ? 'met' : 'NOT met') : `not judged (${FILES.toLocaleString('en-US')} files, not 10,000)`;
  say(`bound (docs/catalog.md): a full plan of 10,000 files within ${BOUND_MS} ms: ${judged}`);
  finished = true;
} finally {
  await stopPrivateStack(stateFile, !finished);
  if (!finished) say(`the stack's logs are kept in ${state.services.catalog.log.replace(/\/[^/]+$/, '')}`);
}
