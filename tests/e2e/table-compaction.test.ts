import { GetObjectCommand } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '@floe/engine';
import { EntryStatus, parseJson, readManifest, readManifestList } from '@floe/iceberg';
import { readWithIcebird } from '../support/icebird';
import { until } from '../support/poll';
import { appendRows, deleteRows, icebergClient, keyOf, vendedS3, type TableRef } from './append-helpers';
import { catalog, token } from './catalog-helpers';
import { bearer, gateway, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Issue 28: compaction and the manifest rewrite, through the maintenance
// worker. Small files are bin-packed into one, in a `replace` snapshot that
// also folds the manifests; position deletes (v2) and deletion vectors (v3)
// are applied so no deleted row comes back, and the delete files that named
// only rewritten files go; v3 row ids are kept. Rows are read back with
// icebird before and after; a dry run changes nothing.

let admin: { api_key: string; principal_id: string };
let w: { warehouse_id: string; name: string; bucket: string };
let base: TableRef;

const path = '/v1/table/maintenance';
const ask = (body: Record<string, unknown>) => gateway().post(path).set(bearer(admin.api_key)).send({ warehouse: w.warehouse_id, namespace: 'cp', ...body });
const health = (name: string) => gateway().get(path).query({ warehouse: w.warehouse_id, namespace: 'cp', name }).set(bearer(admin.api_key));

async function finishedRun(name: string, kind: string, after: number) {
  return until(`a finished ${kind} run`, async () => {
    const runs = (await health(name)).body.runs as Array<Record<string, any>>;
    return runs.find((r) => r.kind === kind && r.status !== 'running' && Date.parse(r.started_at) >= after) ?? null;
  }, 60, 250);
}

async function newTable(name: string, formatVersion: 2 | 3 = 2): Promise<TableRef> {
  await catalog().post(`/v1/${w.warehouse_id}/namespaces/cp/tables`).set(bearer(base.token))
    .send({ name, schema: sinkTestSchema, properties: { 'format-version': String(formatVersion) } }).expect(200);
  return { ...base, table: name };
}

/** The table's rows read with icebird, at its current snapshot or at `snapshotId` (time travel). */
async function rowsOf(ref: TableRef, snapshotId?: unknown): Promise<Array<{ id: number; msg: string }>> {
  const loaded: any = await icebergClient(ref.warehouseId, ref.token).loadTable({ namespace: [ref.namespace], name: ref.table });
  const rows = await readWithIcebird(stack().s3_url, w.bucket, snapshotId === undefined ? loaded : { ...loaded, 'current-snapshot-id': snapshotId });
  return rows.map((r: any) => ({ id: Number(r.id), msg: r.msg })).sort((a, b) => a.id - b.id);
}

/** The head's live entries, read the way a scan plans (the metadata parsed losslessly: snapshot ids pass 2^53). */
async function headEntries(ref: TableRef) {
  const { s3 } = await vendedS3(ref);
  const metadata = (parseJson((await catalog().get(`/v1/${w.warehouse_id}/namespaces/cp/tables/${ref.table}`).set(bearer(ref.token)).expect(200)).text) as any).metadata;
  const read = async (p: string) => new Uint8Array(await (await s3.send(new GetObjectCommand({ Bucket: w.bucket, Key: keyOf(w.bucket, p) }))).Body!.transformToByteArray());
  const head = metadata.snapshots.find((s: any) => s['snapshot-id'] === metadata['current-snapshot-id']);
  const manifests = readManifestList(await read(head['manifest-list'])).manifests;
  const entries = (await Promise.all(manifests.map(async (m) => readManifest(await read(m.manifest_path), m).entries))).flat();
  return { head, manifests, live: entries.filter((e) => e.status !== EntryStatus.DELETED), read, metadata, s3 };
}

beforeAll(async () => {
  const o = await newOrgWithAdmin();
  admin = o.admin;
  w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const credential = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level: 'write' }).set(bearer(admin.api_key)).expect(200)).body.catalog_credential;
  base = { warehouseId: w.warehouse_id, bucket: w.bucket, token: await token(credential.client_id, credential.client_secret), namespace: 'cp', table: '' };
  await catalog().post(`/v1/${w.warehouse_id}/namespaces`).set(bearer(base.token)).send({ namespace: ['cp'] }).expect(200);
}, 60_000);

test('small files: a dry run changes nothing; compaction packs 12 files into one and folds the manifests; every row stays', async () => {
  const ref = await newTable('small');
  for (let i = 1; i <= 12; i++) await appendRows(ref, [{ id: BigInt(2 * i - 1), msg: `a${i}` }, { id: BigInt(2 * i), msg: `b${i}` }]);
  const before = await rowsOf(ref);
  expect(before).toHaveLength(24);
  const listed = await headEntries(ref);
  expect(listed.manifests).toHaveLength(12);

  const dry = await ask({ name: 'small', kinds: ['compact', 'rewrite_manifests'], dry_run: true });
  expect(dry.status).toBe(200);
  const [compactPlan, manifestPlan] = dry.body.kinds;
  expect(compactPlan).toMatchObject({ kind: 'compact', nothing: false, would: { data_files: 12, small_files: 12, files_to_rewrite: { count: 12 } } });
  expect(compactPlan.reason).toMatch(/^12 files under 96 MB in partition \(none\): 12 files \(.*\) rewritten in 1 groups of at most 128 MB$/);
  expect(manifestPlan).toMatchObject({ kind: 'rewrite_manifests', nothing: true });
  expect(manifestPlan.reason).toBe('12 data manifests under 8 MB, fewer than the 16 that are merged');
  expect((await headEntries(ref)).head['snapshot-id']).toBe(listed.head['snapshot-id']);

  const started = Date.now() - 1000;
  await ask({ name: 'small', kinds: ['compact'] }).expect(202);
  const run = await finishedRun('small', 'compact', started);
  expect(run).toMatchObject({ status: 'done', before: { data_files: 12, manifests: 12 }, after: { data_files: 1, manifests: 1 }, freed_bytes: 0, snapshot_id: expect.any(String) });
  const after = await headEntries(ref);
  expect(String(after.head['snapshot-id'])).toBe(run.snapshot_id);
  expect(after.head.summary).toMatchObject({ operation: 'replace', 'added-data-files': '1', 'deleted-data-files': '12', 'total-records': '24', 'total-data-files': '1' });
  expect(after.live.map((e) => e.data_file.file_path)).toEqual([expect.stringMatching(/\/data\/compacted-[0-9a-f-]+\.parquet$/)]);
  expect(await rowsOf(ref)).toEqual(before);

  // GET /v1/table carries the short story; the health view the whole.
  const table = await gateway().get('/v1/table').query({ warehouse: w.warehouse_id, namespace: 'cp', name: 'small' }).set(bearer(admin.api_key)).expect(200);
  expect(table.body.maintenance).toEqual({
    running: false, last_runs: [{ kind: 'compact', status: 'done', reason: run.reason, finished_at: run.finished_at, freed_bytes: 0 }],
    details: `/v1/table/maintenance?warehouse=${w.warehouse_id}&namespace=cp&name=small`,
  });
  expect((await health('small')).body.health).toMatchObject({ small_files: 0, small_files_as_of: run.finished_at, data_files: 1 });

  // Time travel to the snapshot before the compaction reads its own (small) files, still there until expiry.
  expect(await rowsOf(ref, listed.metadata['current-snapshot-id'])).toEqual(before);
}, 120_000);

test.each([2, 3] as const)('v%i: deleted rows stay deleted through compaction, and the deletes that named only rewritten files go', async (v) => {
  const name = `deletes_v${v}`;
  const ref = await newTable(name, v);
  const paths: string[] = [];
  for (let i = 0; i < 6; i++) paths.push((await appendRows(ref, Array.from({ length: 4 }, (_, j) => ({ id: BigInt(10 * i + j), msg: `r${i}.${j}` })))).dataPath);
  await deleteRows(ref, paths[1], [0n, 3n]); // ids 10 and 13
  await deleteRows(ref, paths[4], [2n]); // id 42
  const gone = new Set([10, 13, 42]);
  const expected = Array.from({ length: 6 }, (_, i) => Array.from({ length: 4 }, (_, j) => 10 * i + j)).flat().filter((id) => !gone.has(id));
  const rowIds = new Map<number, bigint>();
  if (v === 3) {
    const { live } = await headEntries(ref);
    for (const e of live) {
      const i = paths.indexOf(e.data_file.file_path);
      if (i >= 0) for (let j = 0; j < 4; j++) rowIds.set(10 * i + j, BigInt(e.data_file.first_row_id!) + BigInt(j));
    }
  }

  const started = Date.now() - 1000;
  await ask({ name, kinds: ['compact'] }).expect(202);
  const run = await finishedRun(name, 'compact', started);
  expect(run).toMatchObject({ status: 'done', after: { data_files: 1 } });
  expect(run.reason).toMatch(/applying 2 delete files$/);
  const after = await headEntries(ref);
  expect(after.live.map((e) => e.data_file.content)).toEqual([0]); // both delete files removed with the files they named
  expect(after.head.summary).toMatchObject({ operation: 'replace', 'removed-delete-files': '2', 'total-delete-files': '0', 'total-records': String(expected.length) });
  expect((await rowsOf(ref)).map((r) => r.id)).toEqual(expected);

  if (v === 3) {
    // Row lineage: each row keeps the id it had before the rewrite.
    const dir = mkdtempSync(join(tmpdir(), 'floe-compaction-test-'));
    const engine = await openEngine({ scratchDir: dir, memoryLimit: '256MB', threads: 1 });
    try {
      const local = join(engine.scratchDir, 'c.parquet');
      writeFileSync(local, await after.read(after.live[0].data_file.file_path));
      const rows = await engine.query(`SELECT id, _row_id FROM read_parquet('${local}') ORDER BY id`);
      expect(rows.map((r) => [Number(r.id), r._row_id])).toEqual(expected.map((id) => [id, rowIds.get(id)]));
    } finally {
      engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}, 120_000);

test('v2 equality deletes: applied by the rewrite, a row written after them kept, and the delete file goes once nothing older stays', async () => {
  const ref = await newTable('eq_deletes');
  for (let i = 0; i < 6; i++) await appendRows(ref, Array.from({ length: 4 }, (_, j) => ({ id: BigInt(10 * i + j), msg: `r${i}.${j}` })));
  await deleteRows(ref, '', [], [10n, 13n, 42n]);
  // An upsert's insert after its delete: a newer sequence number, out of the delete's reach.
  await appendRows(ref, [{ id: 13n, msg: 'r1.3 again' }]);
  const expected = [...Array.from({ length: 6 }, (_, i) => Array.from({ length: 4 }, (_, j) => 10 * i + j)).flat().filter((id) => id !== 10 && id !== 13 && id !== 42), 13]
    .sort((a, b) => a - b);

  const dry = await ask({ name: 'eq_deletes', kinds: ['compact'], dry_run: true });
  expect(dry.body.kinds[0]).toMatchObject({ nothing: false, would: { files_to_rewrite: { count: 7 }, delete_files_applied: 1, delete_files_to_remove: { count: 1 } } });
  const started = Date.now() - 1000;
  await ask({ name: 'eq_deletes', kinds: ['compact'] }).expect(202);
  const run = await finishedRun('eq_deletes', 'compact', started);
  expect(run).toMatchObject({ status: 'done', after: { data_files: 1 } });
  expect(run.reason).toMatch(/applying 1 delete files$/);
  const after = await headEntries(ref);
  expect(after.live.map((e) => e.data_file.content)).toEqual([0]);
  expect(after.head.summary).toMatchObject({ operation: 'replace', 'removed-delete-files': '1', 'total-delete-files': '0', 'total-records': String(expected.length) });
  const rows = await rowsOf(ref);
  expect(rows.map((r) => r.id)).toEqual(expected);
  expect(rows.find((r) => r.id === 13)?.msg).toBe('r1.3 again');
}, 120_000);

test('many small manifests: the rewrite merges them into one, entries and rows unchanged', async () => {
  const ref = await newTable('manifests');
  // Big-enough files (a 100-byte target makes none small) so compaction has nothing to do; 18 manifests.
  await catalog().post(`/v1/${w.warehouse_id}/namespaces/cp/tables/manifests`).set(bearer(base.token))
    .send({ requirements: [], updates: [{ action: 'set-properties', updates: { 'write.target-file-size-bytes': '100' } }] }).expect(200);
  for (let i = 1; i <= 18; i++) await appendRows(ref, [{ id: BigInt(i), msg: `m${i}` }]);
  const before = await headEntries(ref);
  const rows = await rowsOf(ref);
  const started = Date.now() - 1000;
  await ask({ name: 'manifests', kinds: ['compact', 'rewrite_manifests'] }).expect(202);
  expect(await finishedRun('manifests', 'compact', started)).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/^no data file under/) });
  const run = await finishedRun('manifests', 'rewrite_manifests', started);
  expect(run).toMatchObject({ status: 'done', before: { manifests: 18 }, after: { manifests: 1 } });
  expect(run.reason).toMatch(/^18 manifests under 8 MB for spec 0: 18 manifests \(.*\) merged toward 8 MB$/);
  const after = await headEntries(ref);
  const key = (e: any) => `${e.data_file.file_path} ${e.snapshot_id} ${e.sequence_number}`;
  expect(after.live.map(key).sort()).toEqual(before.live.map(key).sort());
  expect(after.live.every((e) => e.status === EntryStatus.EXISTING)).toBe(true);
  expect(await rowsOf(ref)).toEqual(rows);
}, 120_000);
