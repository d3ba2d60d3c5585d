// The maintenance worker dies mid-run — a compaction after uploading its new
// data files but before its commit, a snapshot expiry right after its commit,
// and an expiry half-way through removing what only the expired snapshots
// reached — and the table is never worse for it: the head and every row stay
// as they were (read back with icebird), the dead worker's job is taken over
// by a fresh worker once BullMQ finds it stalled and finishes (the compaction
// lands once), and the files the dead run left behind, which no metadata
// names, are removed by the next orphan pass and by nothing else.
//
// A killed worker's job stays `active` under its lock until BullMQ's stalled
// check (lockDuration and stalledInterval, FLOE_MAINTENANCE_JOB_LOCK_SECONDS:
// 3 s here; one check marks the job, the next moves it back to wait) hands it
// to the next worker: most of each case's time, which the next cases' tables
// and their first commits are made in (`prepare`).
import { randomUUID } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import request from 'supertest';
import { buildAppend, newSnapshotId, parquetDataFile, parseJson, stringifyJson, writeParquetDataFile } from '@floe/iceberg';
import { stopPid } from '../../scripts/lib/processes';
import { joinPrivateStackEnv, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { readWithIcebird } from '../support/icebird';
import { until } from '../support/poll';
import { orgAdminKey } from '../support/stack-org';
import { adminStorage } from '../support/store';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

type Stage = 'after_files' | 'after_commit' | 'mid_expiry';
/** The stages an expiry is killed at, a case each. */
const EXPIRY_STAGES = ['after_commit', 'mid_expiry'] as const;

interface Run {
  run_id: string;
  kind: string;
  status: string;
  reason: string | null;
  trigger: { type: string; detail: string };
  before: Record<string, number | null> | null;
  after: Record<string, number | null> | null;
  freed_bytes: number;
}

const NS = 'mc';
/**
 * FLOE_MAINTENANCE_JOB_LOCK_SECONDS of every maintenance worker here, the
 * stack's own too: its stalled check at its start keeps any other from
 * running for one stalled interval, which at the default (15 s) held up the
 * first case's takeover.
 */
const JOB_LOCK_SECONDS = '3';
const schema = { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };

let stateFile: string;
let state: StackState;
let admin: { Authorization: string };
let wh: { warehouse_id: string; bucket: string };
let catalogAuth: { Authorization: string };
/** Each case's table, made ahead of it (see `prepare`), by name. */
let prepared: Map<string, Promise<Prepared>>;

beforeAll(async () => {
  ({ state, stateFile } = await startPrivateStack('maintenance', { FLOE_LOG_LEVEL: 'warn', FLOE_MAINTENANCE_JOB_LOCK_SECONDS: JOB_LOCK_SECONDS }));
  // This test runs its own maintenance workers.
  await stopPid(state.services['maintenance-worker'].pid);
  admin = { Authorization: `Bearer ${await orgAdminKey(state, 'maintenance')}` };
  const project = await api().post('/v1/projects').set(admin).send({ name: 'p-maintenance' });
  if (project.status !== 201) throw new Error(`project: ${project.status} ${JSON.stringify(project.body)}`);
  wh = (await api().post('/v1/warehouses').set(admin).send({ project_id: project.body.project_id, name: 'lake_maintenance' }).expect(201)).body;
  const credential = (await api().get('/v1/connection').query({ warehouse: wh.warehouse_id, level: 'write' }).set(admin).expect(200)).body.catalog_credential;
  const t = await catalog().post('/v1/oauth/tokens').type('form')
    .send({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret, scope: 'PRINCIPAL_ROLE:ALL' }).expect(200);
  catalogAuth = { Authorization: `Bearer ${t.body.access_token}` };
  // The first case's table first; the expiry cases' two together while the first case runs.
  const compacted = prepare('compacted', 12);
  prepared = new Map([
    ['compacted', compacted],
    ...EXPIRY_STAGES.map((stage) => [expiredTable(stage), compacted.then(() => prepare(expiredTable(stage), 25, EXPIRY_PROPERTIES))] as const),
  ]);
  // Each is awaited by its case: one that fails before then is that case's failure, not an unhandled rejection.
  for (const p of prepared.values()) p.catch(() => undefined);
}, 240_000);

afterAll(async () => {
  if (stateFile) await stopPrivateStack(stateFile);
}, 120_000);

const api = () => request(state.base_url);
const catalog = () => request(state.catalog_url);
const tablePath = (name: string) => `/v1/${wh.warehouse_id}/namespaces/${NS}/tables/${name}`;
const keyOf = (path: string) => path.slice(`s3://${wh.bucket}/`.length);
const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const snapshotIds = (m: any): string[] => (m.snapshots ?? []).map((s: any) => String(s['snapshot-id']));
const expiredTable = (stage: Stage) => `expired_${stage}`;
/** No file is small against a 100-byte target, so the rule an expiry table's appends cross is the snapshots' alone. */
const EXPIRY_PROPERTIES = { 'write.target-file-size-bytes': '100' };

/** A maintenance worker against the private stack, removing unnamed files at any age; resolves `exited` with its exit code. */
function maintenanceWorker(crashAt?: Stage): WorkerProcess {
  return startWorkerProcess('services/maintenance-worker/src/main.ts', 'FLOE_MAINTENANCE_HEALTH_PORT', {
    ...process.env, ...joinPrivateStackEnv(state), FLOE_LOG_LEVEL: 'warn', FLOE_MAINTENANCE_ORPHAN_AGE_SECONDS: '0', FLOE_MAINTENANCE_JOB_LOCK_SECONDS: JOB_LOCK_SECONDS,
    ...(crashAt ? { FLOE_MAINTENANCE_CRASH_AT: crashAt } : {}),
  });
}

/** The worker's exit code; a worker still running after `seconds` is stopped and the test fails. */
async function exitCode(w: WorkerProcess, seconds = 90): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), seconds * 1000); });
  const code = await Promise.race([w.exited, late]);
  clearTimeout(timer);
  if (code === 'late') {
    await w.stop();
    throw new Error(`the worker did not exit within ${seconds} s`);
  }
  return code;
}

async function newTable(name: string, properties?: Record<string, string>): Promise<void> {
  await api().post('/v1/tables').set(admin).send({ warehouse_id: wh.warehouse_id, namespace: NS, name, schema }).expect(201);
  if (properties) await catalog().post(tablePath(name)).set(catalogAuth).send({ requirements: [], updates: [{ action: 'set-properties', updates: properties }] }).expect(200);
}

/** The table's metadata with every long exact. */
async function metadataOf(name: string): Promise<any> {
  const res = await catalog().get(tablePath(name)).set(catalogAuth).expect(200);
  return (parseJson(res.text) as any).metadata;
}

/**
 * Appends as an engine does, one data file per call: a Parquet file and a
 * fast-append snapshot under the table's location with the session the
 * catalog vends, committed with the head it was built on (ids exact).
 */
async function appender(name: string): Promise<(rows: number[]) => Promise<string>> {
  const res = await catalog().get(tablePath(name)).set(catalogAuth).set('X-Iceberg-Access-Delegation', 'vended-credentials').expect(200);
  const loaded = parseJson(res.text) as any;
  const c = loaded.config;
  const s3 = new S3Client({
    endpoint: c['s3.endpoint'], region: c['s3.region'], forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: c['s3.access-key-id'], secretAccessKey: c['s3.secret-access-key'], sessionToken: c['s3.session-token'] },
  });
  const put = (path: string, body: Uint8Array) => s3.send(new PutObjectCommand({ Bucket: wh.bucket, Key: keyOf(path), Body: body }));
  const read = async (path: string) => new Uint8Array(await (await s3.send(new GetObjectCommand({ Bucket: wh.bucket, Key: keyOf(path) }))).Body!.transformToByteArray());
  let metadata = loaded.metadata;
  return async (rows) => {
    const tableSchema = metadata.schemas.find((s: any) => s['schema-id'] === metadata['current-schema-id']);
    const { bytes, stats } = writeParquetDataFile({ schema: tableSchema, rows: rows.map((id) => ({ id: BigInt(id) })) });
    const dataPath = `${metadata.location}/data/${randomUUID()}.parquet`;
    await put(dataPath, bytes);
    const parent = (metadata.snapshots ?? []).find((s: any) => String(s['snapshot-id']) === String(metadata['current-snapshot-id'])) ?? null;
    const snapshotId = newSnapshotId();
    const built = await buildAppend({
      formatVersion: metadata['format-version'], schema: tableSchema,
      spec: metadata['partition-specs'].find((s: any) => s['spec-id'] === metadata['default-spec-id']),
      parent, lastSequenceNumber: BigInt(metadata['last-sequence-number']), files: [parquetDataFile(dataPath, stats)],
      nextRowId: metadata['format-version'] >= 3 ? BigInt(metadata['next-row-id'] ?? 0) : undefined,
      snapshotId, manifestPath: `${metadata.location}/metadata/${randomUUID()}-m0.avro`,
      manifestListPath: `${metadata.location}/metadata/snap-${snapshotId}-${randomUUID()}.avro`, read,
    });
    for (const u of built.uploads) await put(u.path, u.bytes);
    const commit = await catalog().post(tablePath(name)).set(catalogAuth).set('Content-Type', 'application/json').send(stringifyJson({
      requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': parent ? parent['snapshot-id'] : null }],
      updates: [{ action: 'add-snapshot', snapshot: built.snapshot }, { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshotId }],
    }));
    if (commit.status !== 200) throw new Error(`append to ${name}: ${commit.status} ${commit.text}`);
    metadata = (parseJson(commit.text) as any).metadata;
    return String(snapshotId);
  };
}

interface Prepared {
  /** Appends to the table, one commit a call (see `appender`). */
  append: (rows: number[]) => Promise<string>;
  /** The snapshots the commits made so far, oldest first. */
  heads: string[];
}

/**
 * A case's table and its first `commits` one-row appends, made while the
 * cases before it wait on workers. None of them crosses a rule, so none
 * queues a run the cases before it would see: 25 snapshots at most (a
 * commit past 25 queues an expiry) and fewer than 16 small files (16 queue a
 * compaction).
 */
async function prepare(name: string, commits: number, properties?: Record<string, string>): Promise<Prepared> {
  await newTable(name, properties);
  const append = await appender(name);
  const heads: string[] = [];
  for (const id of ids(commits)) heads.push(await append([id]));
  return { append, heads };
}

/** The table's ids as icebird reads them at its head, sorted: every row exactly once or the test sees it. */
async function rowsOf(name: string): Promise<number[]> {
  const res = await catalog().get(tablePath(name)).set(catalogAuth).expect(200);
  const rows = await readWithIcebird(state.s3_url, wh.bucket, JSON.parse(res.text).metadata);
  return rows.map((r: any) => Number(r.id)).sort((a, b) => a - b);
}

/** Every object under `prefix` (an s3:// path) with its size, listed by the store's admin. */
async function objectsUnder(prefix: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let token: string | undefined;
  do {
    const page = await adminStorage().s3.send(new ListObjectsV2Command({ Bucket: wh.bucket, Prefix: keyOf(prefix), ContinuationToken: token }));
    for (const o of page.Contents ?? []) out.set(`s3://${wh.bucket}/${o.Key}`, o.Size ?? 0);
    token = page.NextContinuationToken;
  } while (token);
  return out;
}

async function runsOf(name: string): Promise<Run[]> {
  const res = await api().get('/v1/table/maintenance').query({ warehouse: wh.warehouse_id, namespace: NS, name }).set(admin);
  if (res.status !== 200) throw new Error(`maintenance of ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.runs;
}

const ask = (name: string, kinds: string[]) => api().post('/v1/table/maintenance').set(admin).send({ warehouse: wh.warehouse_id, namespace: NS, name, kinds });

/** A run of `kind` not among `seen`, once it finished (the dead worker's job runs again once BullMQ found it stalled). */
async function finishedRun(name: string, kind: string, seen: Run[], seconds = 60): Promise<Run> {
  const old = new Set(seen.map((r) => r.run_id));
  return until(`a finished ${kind} run of ${name}`, async () => (await runsOf(name)).find((r) => r.kind === kind && !old.has(r.run_id) && r.status !== 'running') ?? null, seconds, 250);
}

/** Asks for an orphan pass of its own (not joined to a job just finishing) and waits for its run. */
async function orphanPass(name: string): Promise<Run> {
  const seen = await runsOf(name);
  await until('an orphan pass queued on its own', async () => {
    const res = await ask(name, ['remove_orphans']);
    expect(res.status).toBe(202);
    return res.body.joined === false ? res.body : null;
  }, 30, 500);
  return finishedRun(name, 'remove_orphans', seen);
}

const orphanReason = (files: Map<string, number>) =>
  `${files.size} files under the location that no metadata names, older than 0 s (${[...files.values()].reduce((n, s) => n + s, 0)} bytes)`;

test('a compaction killed after uploading its files: the head and rows stay, the stalled job compacts once, the orphan pass removes what the dead run wrote', async () => {
  const name = 'compacted';
  const { heads } = await prepared.get(name)!;
  const before = await metadataOf(name);
  const dataPrefix = `${before.location}/data/`;
  const data0 = await objectsUnder(dataPrefix);
  expect(data0.size).toBe(12);
  expect(await rowsOf(name)).toEqual(ids(12));

  const queued = await ask(name, ['compact']);
  expect(queued.status).toBe(202);
  expect(queued.body).toMatchObject({ joined: false, kinds: ['compact'] });
  expect(await exitCode(maintenanceWorker('after_files'))).toBe(86);

  // Nothing committed: the same head and rows; the new files are in the store, named by nothing.
  const mid = await metadataOf(name);
  expect(String(mid['current-snapshot-id'])).toBe(heads[11]);
  expect(snapshotIds(mid)).toEqual(heads);
  expect(await rowsOf(name)).toEqual(ids(12));
  const data1 = await objectsUnder(dataPrefix);
  const leftovers = new Map([...data1].filter(([p]) => !data0.has(p)));
  expect([...leftovers.keys()]).toEqual([expect.stringMatching(/\/data\/compacted-[0-9a-f-]{36}\.parquet$/)]);
  expect(data1.size).toBe(13);
  const died = await runsOf(name);
  expect(died.map((r) => [r.kind, r.status])).toEqual([['compact', 'running']]);
  // The dead worker's job still holds the table's place in the queue: a request joins it.
  expect((await ask(name, ['compact'])).body).toMatchObject({ joined: true, kinds: null });

  const healthy = maintenanceWorker();
  try {
    const compacted = await finishedRun(name, 'compact', died, 120);
    expect(compacted).toMatchObject({ status: 'done', before: { snapshots: 12, data_files: 12 }, after: { snapshots: 13, data_files: 1 } });
    const after = await metadataOf(name);
    expect(snapshotIds(after)).toEqual([...heads, String(after['current-snapshot-id'])]);
    const head = after.snapshots[12];
    expect(head.summary).toMatchObject({ operation: 'replace', 'floe.maintenance': 'compact', 'total-data-files': '1', 'total-records': '12' });
    expect(String(head['parent-snapshot-id'])).toBe(heads[11]);
    expect(await rowsOf(name)).toEqual(ids(12));
    // The dead worker's run is recorded failed, with why, once the next run took the table.
    expect((await runsOf(name)).find((r) => r.run_id === died[0].run_id)).toMatchObject({
      status: 'failed', reason: 'the worker running it stopped before it finished; a later run took the table over', finished_at: expect.any(String),
    });
    // The retried run wrote its own file; the dead run's is still there until the orphan pass.
    const data2 = await objectsUnder(dataPrefix);
    const written = [...data2.keys()].filter((p) => !data1.has(p));
    expect(written).toEqual([expect.stringMatching(/\/data\/compacted-[0-9a-f-]{36}\.parquet$/)]);
    expect(data2.size).toBe(14);

    const orphans = await orphanPass(name);
    expect(orphans).toMatchObject({ status: 'done', reason: orphanReason(leftovers), freed_bytes: [...leftovers.values()][0] });
    const data3 = await objectsUnder(dataPrefix);
    expect([...data3.keys()].sort()).toEqual([...data0.keys(), ...written].sort());
    expect(String((await metadataOf(name))['current-snapshot-id'])).toBe(String(after['current-snapshot-id']));
    expect(await rowsOf(name)).toEqual(ids(12));
  } finally {
    await healthy.stop();
  }
}, 200_000);

test.each(EXPIRY_STAGES)('a snapshot expiry killed %s: the newest 20 snapshots and every row stay, the orphan pass removes what the expired ones alone reached', async (stage) => {
  const name = expiredTable(stage);
  const { append, heads } = await prepared.get(name)!;
  for (const id of ids(30).slice(heads.length)) heads.push(await append([id]));
  const before = await metadataOf(name);
  expect(snapshotIds(before)).toEqual(heads);
  // Appends carry their parents' manifests: what only the 10 oldest snapshots reach is their manifest lists.
  const all0 = await objectsUnder(`${before.location}/`);
  const expiredLists: string[] = before.snapshots.slice(0, 10).map((s: any) => s['manifest-list']);
  for (const p of expiredLists) expect(all0.has(p)).toBe(true);
  const dataPrefix = `${before.location}/data/`;
  const data0 = [...(await objectsUnder(dataPrefix)).keys()].sort();
  expect(data0).toHaveLength(30);
  expect(await rowsOf(name)).toEqual(ids(30));

  // The commits past 25 snapshots queued the table's run (the stack's own worker is stopped): a request joins it.
  expect((await ask(name, ['expire_snapshots'])).body).toMatchObject({ joined: true, kinds: null });
  expect(await exitCode(maintenanceWorker(stage))).toBe(86);

  // Committed: the newest 20 snapshots stay; of the files only the expired ones reached, none or half are gone.
  const mid = await metadataOf(name);
  expect(snapshotIds(mid)).toEqual(heads.slice(10));
  expect(String(mid['current-snapshot-id'])).toBe(heads[29]);
  const all1 = await objectsUnder(`${before.location}/`);
  const leftovers = new Map(expiredLists.filter((p) => all1.has(p)).map((p): [string, number] => [p, all0.get(p)!]));
  expect(leftovers.size).toBe(stage === 'after_commit' ? 10 : 5);
  expect([...(await objectsUnder(dataPrefix)).keys()].sort()).toEqual(data0);
  expect(await rowsOf(name)).toEqual(ids(30));
  const died = await runsOf(name);
  expect(died.map((r) => [r.kind, r.status, r.trigger.type])).toEqual([['expire_snapshots', 'running', 'rule']]);
  expect(died[0].before).toMatchObject({ snapshots: 30 });

  const healthy = maintenanceWorker();
  try {
    // The stalled job runs again: nothing is left to expire, and the files no metadata names are not its to find.
    const again = await finishedRun(name, 'expire_snapshots', died, 120);
    expect(again).toMatchObject({ status: 'skipped', reason: 'nothing to expire: 20 snapshots, all within the retention rules', freed_bytes: 0 });
    const left = expiredLists.filter((p) => leftovers.has(p));
    const all2 = await objectsUnder(`${before.location}/`);
    expect(left.filter((p) => !all2.has(p))).toEqual([]);

    const orphans = await orphanPass(name);
    expect(orphans).toMatchObject({ status: 'done', reason: orphanReason(leftovers), freed_bytes: [...leftovers.values()].reduce((n, s) => n + s, 0) });
    const all3 = await objectsUnder(`${before.location}/`);
    expect(expiredLists.filter((p) => all3.has(p))).toEqual([]);
    expect([...(await objectsUnder(dataPrefix)).keys()].sort()).toEqual(data0);
    expect(snapshotIds(await metadataOf(name))).toEqual(heads.slice(10));
    expect(await rowsOf(name)).toEqual(ids(30));
  } finally {
    await healthy.stop();
  }
}, 200_000);
