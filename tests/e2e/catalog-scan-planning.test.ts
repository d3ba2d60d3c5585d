import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readDeletionVector } from '@floe/iceberg';
import { readWithIcebird } from '../support/icebird';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { appendRows, deleteRows, keyOf, sessionS3, vendedS3, type TableRef } from './append-helpers';
import { catalog, icebergError, token } from './catalog-helpers';
import { bearer, stack } from './helpers';

// Issue 36: server-side scan planning (planTableScan, fetchPlanningResult,
// cancelPlanning, fetchScanTasks). The tasks a plan answers are read here
// with DuckDB through the read-only session the plan vends, their deletes
// applied as the tasks reference them, and compared with icebird (an
// independent reader) reading the whole table at the same snapshot, filtered
// the same way: unpartitioned and partitioned, with position and equality
// deletes, at the current snapshot and an older one; a v3 deletion vector is
// checked against the rows deleted (icebird 0.3 cannot read one). The e2e
// stack plans tables of more than 4 files in the background, 2 tasks a page
// (tests/e2e/global-setup.ts), so paging and polling are exercised on small
// tables.

let wh: TestWarehouse;
let rw: string;
let ro: string;
let dir: string;
let duck: DuckDBConnection;
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'part', required: false, type: 'string' }] };
// Every file counts as big, so no compaction run rewrites the files a test plans over.
const properties = { 'write.target-file-size-bytes': '1' };
const tables = () => `/v1/${wh.id}/namespaces/scan/tables`;
const ref = (table: string): TableRef => ({ warehouseId: wh.id, bucket: wh.tableBucket, token: rw, namespace: 'scan', table });
const rowsOf = (from: number, count: number, part = 'a') => Array.from({ length: count }, (_, k) => ({ id: BigInt(from + k), part }));
const plan = (table: string, body: Record<string, unknown>, t = rw) =>
  catalog().post(`${tables()}/${table}/plan`).set(bearer(t)).set('X-Iceberg-Access-Delegation', 'vended-credentials').send(body);

beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  rw = await token(wh.rw.clientId, wh.rw.clientSecret);
  ro = await token(wh.ro.clientId, wh.ro.clientSecret);
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rw)).send({ namespace: ['scan'] }).expect(200);
  dir = mkdtempSync(join(tmpdir(), 'floe-scan-'));
  duck = await (await DuckDBInstance.create(':memory:')).connect();
}, 60_000);

afterAll(async () => {
  duck?.closeSync();
  rmSync(dir, { recursive: true, force: true });
  await removeTestWarehouse(wh);
}, 60_000);

async function newTable(name: string, o: { partitioned?: boolean; formatVersion?: number } = {}): Promise<TableRef> {
  await catalog().post(tables()).set(bearer(rw)).send({
    name, schema, properties: { ...properties, ...(o.formatVersion ? { 'format-version': String(o.formatVersion) } : {}) },
    ...(o.partitioned ? { 'partition-spec': { 'spec-id': 0, fields: [{ 'source-id': 2, 'field-id': 1000, name: 'part', transform: 'identity' }] } } : {}),
  }).expect(200);
  return ref(name);
}

interface Completed {
  status: 'completed';
  'plan-id'?: string;
  'file-scan-tasks'?: Array<{ 'data-file': Record<string, any>; 'delete-file-references'?: number[] }>;
  'delete-files'?: Array<Record<string, any>>;
  'plan-tasks'?: string[];
  'storage-credentials'?: Array<{ prefix: string; config: Record<string, string> }>;
}

/** The ids a plan's tasks hold once their deletes are applied, read with the session the plan vended. */
async function readTasks(table: string, answer: Completed): Promise<number[]> {
  const tasks = answer['file-scan-tasks'] ?? [];
  const deletes = answer['delete-files'] ?? [];
  if (!tasks.length) return [];
  const s3 = sessionS3(answer['storage-credentials']![0].config);
  const get = async (path: string, range?: string) =>
    (await s3.send(new GetObjectCommand({ Bucket: wh.tableBucket, Key: keyOf(wh.tableBucket, path), Range: range }))).Body!.transformToByteArray();
  const local = async (path: string) => {
    const p = join(dir, `${table}-${Math.random().toString(36).slice(2)}.parquet`);
    writeFileSync(p, await get(path));
    return p;
  };
  const out: number[] = [];
  for (const task of tasks) {
    const path = task['data-file']['file-path'];
    const rows = (await duck.runAndReadAll(`SELECT id, file_row_number AS pos FROM read_parquet('${await local(path)}', file_row_number = true)`)).getRowObjects();
    const deletedAt = new Set<number>();
    const deletedIds = new Set<number>();
    for (const i of task['delete-file-references'] ?? []) {
      const d = deletes[i];
      if (d.content === 'equality-deletes') {
        for (const r of (await duck.runAndReadAll(`SELECT id FROM read_parquet('${await local(d['file-path'])}')`)).getRowObjects()) deletedIds.add(Number(r.id));
      } else if (d['file-format'] === 'puffin') {
        const blob = await get(d['file-path'], `bytes=${d['content-offset']}-${Number(d['content-offset']) + Number(d['content-size-in-bytes']) - 1}`);
        for (const pos of readDeletionVector(blob)) deletedAt.add(Number(pos));
      } else {
        const named = (await duck.runAndReadAll(`SELECT pos FROM read_parquet('${await local(d['file-path'])}') WHERE file_path = '${path}'`)).getRowObjects();
        for (const r of named) deletedAt.add(Number(r.pos));
      }
    }
    for (const r of rows) if (!deletedAt.has(Number(r.pos)) && !deletedIds.has(Number(r.id))) out.push(Number(r.id));
  }
  return out.sort((a, b) => a - b);
}

/** What icebird reads of the whole table at `snapshotId` (the current one when null), less what `keep` rules out. */
async function icebirdIds(t: TableRef, snapshotId: bigint | null, keep: (r: { id: number; part: string }) => boolean = () => true): Promise<number[]> {
  const { metadata } = await vendedS3(t);
  const at = snapshotId === null ? metadata : { ...metadata, 'current-snapshot-id': Number(snapshotId) };
  const rows = await readWithIcebird(stack().s3_url, wh.tableBucket, at);
  return rows.map((r: any) => ({ id: Number(r.id), part: r.part })).filter(keep).map((r) => r.id).sort((a, b) => a - b);
}

/**
 * A plan's whole answer, as an engine gathers it: polled while `submitted`,
 * its plan tasks fetched, the pages' tasks and delete files put together (each
 * page's delete references are indexes into its own delete files).
 */
async function planned(table: string, body: Record<string, unknown>, t = rw): Promise<Completed> {
  const first = await plan(table, body, t);
  expect(first.status).toBe(200);
  const planId: string = first.body['plan-id'];
  let answer = first.body;
  for (let i = 0; answer.status === 'submitted' && i < 200; i++) {
    await new Promise((r) => setTimeout(r, 50));
    answer = (await catalog().get(`${tables()}/${table}/plan/${planId}`).set(bearer(t)).set('X-Iceberg-Access-Delegation', 'vended-credentials').expect(200)).body;
  }
  expect(answer.status).toBe('completed');
  const out: Completed = { status: 'completed', 'plan-id': planId, 'file-scan-tasks': [...(answer['file-scan-tasks'] ?? [])], 'delete-files': [...(answer['delete-files'] ?? [])], 'storage-credentials': answer['storage-credentials'] };
  for (const task of answer['plan-tasks'] ?? []) {
    const page = (await catalog().post(`${tables()}/${table}/tasks`).set(bearer(t)).send({ 'plan-task': task }).expect(200)).body;
    const offset = out['delete-files']!.length;
    out['delete-files']!.push(...page['delete-files']);
    for (const ft of page['file-scan-tasks']) {
      out['file-scan-tasks']!.push({ ...ft, ...(ft['delete-file-references'] ? { 'delete-file-references': ft['delete-file-references'].map((k: number) => k + offset) } : {}) });
    }
  }
  return out;
}

test('unpartitioned, with position and equality deletes: the tasks give what icebird reads, now and at an older snapshot; a filter prunes files', async () => {
  const t = await newTable('events');
  const a = await appendRows(t, rowsOf(1, 10));
  await appendRows(t, rowsOf(11, 10));
  const c = await appendRows(t, rowsOf(21, 10));
  await deleteRows(t, a.dataPath, [0n, 1n]);
  await deleteRows(t, c.dataPath, [], [25n]);

  const now = await planned('events', {});
  expect(now['plan-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(now['file-scan-tasks']).toHaveLength(3);
  // Two pages of tasks (2 a page here): the equality delete is listed on each page whose tasks it applies to.
  expect([...new Set(now['delete-files']!.map((d) => d['file-path']))]).toHaveLength(2);
  expect(now['storage-credentials']![0].prefix).toBe(`${(await vendedS3(t)).location}/data`);
  const expected = await icebirdIds(t, null);
  expect(expected).toHaveLength(27);
  expect(await readTasks('events', now)).toEqual(expected);
  // The equality delete came after every file, so each task references it; the position deletes only the first file's.
  const byPath = new Map(now['file-scan-tasks']!.map((task) => [task['data-file']['file-path'], task]));
  const kinds = (path: string) => byPath.get(path)!['delete-file-references']!.map((k) => now['delete-files']![k].content).sort();
  expect(kinds(a.dataPath)).toEqual(['equality-deletes', 'position-deletes']);
  expect(kinds(c.dataPath)).toEqual(['equality-deletes']);
  expect(now['delete-files']!.find((d) => d.content === 'equality-deletes')).toMatchObject({ 'equality-ids': [1] });

  // A filter that excludes all but one file: the others are not planned, and the rows are icebird's filtered.
  const filtered = await planned('events', { filter: { type: 'gt', left: { type: 'reference', name: 'id' }, right: 22 } });
  expect(filtered['file-scan-tasks']!.map((task) => task['data-file']['file-path'])).toEqual([c.dataPath]);
  expect((await readTasks('events', filtered)).filter((id) => id > 22)).toEqual(await icebirdIds(t, null, (r) => r.id > 22));

  // The snapshot before the deletes.
  const older = await planned('events', { 'snapshot-id': Number(c.snapshotId), select: ['id'] });
  expect(older['delete-files']).toEqual([]);
  expect(await readTasks('events', older)).toEqual(await icebirdIds(t, c.snapshotId));
  expect(await readTasks('events', older)).toHaveLength(30);

  // An incremental scan: what the appends after the first added.
  const incremental = await planned('events', { 'start-snapshot-id': Number(a.snapshotId), 'end-snapshot-id': Number(c.snapshotId) });
  expect(await readTasks('events', incremental)).toEqual(Array.from({ length: 20 }, (_, k) => 11 + k));
}, 120_000);

test('partitioned, with position deletes in one partition: the partition filter plans one file, and the rows are icebird\'s', async () => {
  const t = await newTable('parted', { partitioned: true });
  await appendRows(t, rowsOf(1, 5, 'a'), 1, { partition: { part: 'a' } });
  const b = await appendRows(t, rowsOf(1, 5, 'b'), 1, { partition: { part: 'b' } });
  await deleteRows(t, b.dataPath, [1n, 2n], undefined, { part: 'b' });

  const all = await planned('parted', { 'stats-fields': ['id'] });
  expect(all['file-scan-tasks']!.map((task) => task['data-file'].partition).sort()).toEqual([['a'], ['b']]);
  expect(all['file-scan-tasks']![0]['data-file']).toMatchObject({ content: 'data', 'file-format': 'parquet', 'spec-id': 0, 'record-count': 5, 'lower-bounds': { keys: [1], values: [1] }, 'upper-bounds': { keys: [1], values: [5] } });
  expect(await readTasks('parted', all)).toEqual(await icebirdIds(t, null));

  const onlyB = await planned('parted', { filter: { type: 'eq', term: 'part', value: 'b' } });
  expect(onlyB['file-scan-tasks']!.map((task) => task['data-file']['file-path'])).toEqual([b.dataPath]);
  expect(await readTasks('parted', onlyB)).toEqual(await icebirdIds(t, null, (r) => r.part === 'b'));
  expect(await readTasks('parted', onlyB)).toEqual([1, 4, 5]);
}, 120_000);

test('v3: a deletion vector is referenced by the task of its data file', async () => {
  const t = await newTable('vectors', { formatVersion: 3 });
  const a = await appendRows(t, rowsOf(1, 6));
  await appendRows(t, rowsOf(7, 4));
  await deleteRows(t, a.dataPath, [0n, 3n]);
  const got = await planned('vectors', {});
  expect(got['delete-files']).toEqual([expect.objectContaining({ content: 'position-deletes', 'file-format': 'puffin', 'referenced-data-file': a.dataPath, 'content-offset': 4 })]);
  expect(got['file-scan-tasks']!.find((task) => task['data-file']['file-path'] === a.dataPath)!['data-file']['first-row-id']).toBe(0);
  expect(await readTasks('vectors', got)).toEqual([2, 3, 5, 6, 7, 8, 9, 10]);
}, 60_000);

test('a large plan is planned in the background and answered in plan tasks; cancelling lets it go', async () => {
  const t = await newTable('many');
  for (let i = 0; i < 5; i++) await appendRows(t, rowsOf(i * 3 + 1, 3));
  const submitted = await plan('many', {});
  expect(submitted.status).toBe(200);
  expect(submitted.body).toEqual({ status: 'submitted', 'plan-id': expect.stringMatching(/^[0-9a-f-]{36}$/) });
  const planId = submitted.body['plan-id'];
  let result: any;
  for (let i = 0; i < 100; i++) {
    result = await catalog().get(`${tables()}/many/plan/${planId}`).set(bearer(ro)).set('X-Iceberg-Access-Delegation', 'vended-credentials');
    expect(result.status).toBe(200);
    if (result.body.status !== 'submitted') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(result.body.status).toBe('completed');
  expect(result.body['plan-tasks']).toHaveLength(3);
  expect(result.body).not.toHaveProperty('file-scan-tasks');
  const pages = await Promise.all(result.body['plan-tasks'].map((task: string) => catalog().post(`${tables()}/many/tasks`).set(bearer(ro)).send({ 'plan-task': task })));
  expect(pages.map((p) => p.status)).toEqual([200, 200, 200]);
  expect(pages.map((p) => p.body['file-scan-tasks'].length)).toEqual([2, 2, 1]);
  const ids = await readTasks('many', { status: 'completed', 'file-scan-tasks': pages.flatMap((p) => p.body['file-scan-tasks']), 'delete-files': [], 'storage-credentials': result.body['storage-credentials'] });
  expect(ids).toEqual(await icebirdIds(t, null));

  // Cancelled: the result says so and its tasks are gone; cancelling again is no error.
  expect((await catalog().delete(`${tables()}/many/plan/${planId}`).set(bearer(ro))).status).toBe(204);
  expect((await catalog().get(`${tables()}/many/plan/${planId}`).set(bearer(ro))).body).toEqual({ status: 'cancelled' });
  icebergError(await catalog().post(`${tables()}/many/tasks`).set(bearer(ro)).send({ 'plan-task': result.body['plan-tasks'][0] }), 404, 'NoSuchPlanTaskException');
  expect((await catalog().delete(`${tables()}/many/plan/${planId}`).set(bearer(ro))).status).toBe(204);
}, 120_000);

test('20 plans at once are 20 plans; 20 cancels of one at once all answer 204 and leave it cancelled', async () => {
  await newTable('racing');
  await appendRows(ref('racing'), rowsOf(1, 3));
  const plans = await Promise.all(Array.from({ length: 20 }, () => plan('racing', {}, ro)));
  expect(plans.map((p) => p.body.status)).toEqual(Array(20).fill('completed'));
  expect(new Set(plans.map((p) => p.body['plan-id'])).size).toBe(20);
  const planId = plans[0].body['plan-id'];
  const cancels = await Promise.all(Array.from({ length: 20 }, () => catalog().delete(`${tables()}/racing/plan/${planId}`).set(bearer(rw))));
  expect(cancels.map((c) => c.status)).toEqual(Array(20).fill(204));
  expect((await catalog().get(`${tables()}/racing/plan/${planId}`).set(bearer(rw))).body).toEqual({ status: 'cancelled' });
  expect((await catalog().get(`${tables()}/racing/plan/${plans[1].body['plan-id']}`).set(bearer(rw))).body.status).toBe('completed');
}, 60_000);

test('the vended session reads only the planned files\' prefix, and never writes', async () => {
  await newTable('confined');
  const a = await appendRows(ref('confined'), rowsOf(1, 2));
  const answer = await planned('confined', {}, ro);
  const s3 = sessionS3(answer['storage-credentials']![0].config);
  expect((await s3.send(new GetObjectCommand({ Bucket: wh.tableBucket, Key: keyOf(wh.tableBucket, a.dataPath) }))).$metadata.httpStatusCode).toBe(200);
  const { metadata } = await vendedS3(ref('confined'));
  const manifestList = metadata.snapshots.at(-1)['manifest-list'];
  await expect(s3.send(new GetObjectCommand({ Bucket: wh.tableBucket, Key: keyOf(wh.tableBucket, manifestList) }))).rejects.toMatchObject({ name: 'AccessDenied' });
  await expect(s3.send(new PutObjectCommand({ Bucket: wh.tableBucket, Key: keyOf(wh.tableBucket, `${a.dataPath}.x`), Body: 'x' }))).rejects.toMatchObject({ name: 'AccessDenied' });
  // Without the header, no credentials.
  expect((await catalog().post(`${tables()}/confined/plan`).set(bearer(ro)).send({})).body).not.toHaveProperty('storage-credentials');
}, 60_000);

test('refusals in the Iceberg error model', async () => {
  await newTable('refused');
  await appendRows(ref('refused'), rowsOf(1, 1));
  const other = await newTable('other');
  await appendRows(other, rowsOf(1, 1));
  const p = (body: unknown) => catalog().post(`${tables()}/refused/plan`).set(bearer(rw)).send(body as never);
  icebergError(await p({ filter: { type: 'eq', left: { type: 'reference', name: 'nope' }, right: 1 } }), 400, 'BadRequestException');
  icebergError(await p({ filter: { type: 'between' } }), 400, 'BadRequestException');
  icebergError(await p({ select: ['id', 'nope'] }), 400, 'BadRequestException');
  icebergError(await p({ 'stats-fields': 'id' }), 400, 'BadRequestException');
  icebergError(await p({ 'snapshot-id': 'x' }), 400, 'BadRequestException');
  icebergError(await p({ 'snapshot-id': 12345 }), 400, 'BadRequestException');
  icebergError(await p({ 'snapshot-id': 1, 'end-snapshot-id': 2 }), 400, 'BadRequestException');
  icebergError(await p({ 'start-snapshot-id': 1 }), 400, 'BadRequestException');
  icebergError(await p({ 'case-sensitive': 'no' }), 400, 'BadRequestException');
  expect((await p({ filter: { type: 'eq', left: { type: 'reference', name: 'ID' }, right: 1 }, 'case-sensitive': false })).body.status).toBe('completed');
  icebergError(await catalog().post(`${tables()}/ghost/plan`).set(bearer(rw)).send({}), 404, 'NoSuchTableException');

  const mine = (await p({})).body['plan-id'];
  icebergError(await catalog().get(`${tables()}/refused/plan/00000000-0000-4000-8000-000000000000`).set(bearer(rw)), 404, 'NoSuchPlanIdException');
  // A plan of another table is not this table's.
  icebergError(await catalog().get(`${tables()}/other/plan/${mine}`).set(bearer(rw)), 404, 'NoSuchPlanIdException');
  icebergError(await catalog().delete(`${tables()}/other/plan/${mine}`).set(bearer(rw)), 404, 'NoSuchPlanIdException');
  icebergError(await catalog().post(`${tables()}/other/tasks`).set(bearer(rw)).send({ 'plan-task': `${mine}:0` }), 404, 'NoSuchPlanTaskException');
  icebergError(await catalog().post(`${tables()}/refused/tasks`).set(bearer(rw)).send({ 'plan-task': 'not a task' }), 404, 'NoSuchPlanTaskException');
  icebergError(await catalog().post(`${tables()}/refused/tasks`).set(bearer(rw)).send({}), 400, 'BadRequestException');

  // Another catalog's credential, and none.
  const stranger = await createTestWarehouse(stack());
  try {
    const theirs = await token(stranger.rw.clientId, stranger.rw.clientSecret);
    icebergError(await catalog().post(`${tables()}/refused/plan`).set(bearer(theirs)).send({}), 404, 'NoSuchWarehouseException');
    icebergError(await catalog().get(`${tables()}/refused/plan/${mine}`).set(bearer(theirs)), 404, 'NoSuchWarehouseException');
  } finally {
    await removeTestWarehouse(stranger);
  }
  icebergError(await catalog().post(`${tables()}/refused/plan`).send({}), 401, 'NotAuthorizedException');
}, 60_000);
