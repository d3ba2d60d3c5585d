// The catalog's central promise, end to end: a client writes a Parquet data
// file and manifests (packages/iceberg) into the table's location with
// credentials the catalog vended, commits the append with iceberg-js, and
// independent readers (icebird, DuckDB) read exactly those rows back.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { countRows } from '@floe/iceberg';
import { readWithIcebird } from '../support/icebird';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { appendRows, icebergClient, keyOf, vendedS3 } from './append-helpers';
import { catalog } from './catalog-helpers';
import { bearer, stack } from './helpers';

let wh: TestWarehouse;
let rw: string;
const dir = mkdtempSync(join(tmpdir(), 'floe-append-'));
const schema = {
  type: 'struct', 'schema-id': 0,
  fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'name', required: false, type: 'string' }],
};

beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  rw = (await catalog().post('/v1/oauth/tokens').type('form')
    .send({ grant_type: 'client_credentials', client_id: wh.rw.clientId, client_secret: wh.rw.clientSecret })).body.access_token;
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const ref = (table: string) => ({ warehouseId: wh.id, bucket: wh.tableBucket, token: rw, namespace: 'lake', table });
const append = (table: string, rows: Array<{ id: bigint; name: string | null }>, attempts = 1) => appendRows(ref(table), rows, attempts);

test('append with vended credentials, commit with iceberg-js, read back with icebird and DuckDB', async () => {
  const c = icebergClient(wh.id, rw);
  await c.createNamespace({ namespace: ['lake'] });
  await c.createTable({ namespace: ['lake'] }, { name: 'sales', schema: schema as never });

  await append('sales', [{ id: 1n, name: 'ada' }, { id: 2n, name: 'bo' }, { id: 3n, name: null }]);
  const second = await append('sales', [{ id: 4n, name: 'cy' }, { id: 5n, name: 'di' }]);

  const loaded = await c.loadTable({ namespace: ['lake'], name: 'sales' });
  expect(BigInt(loaded['current-snapshot-id'] as number)).toBe(second.snapshotId);
  expect(loaded.snapshots).toHaveLength(2);
  const head = loaded.snapshots!.find((s) => BigInt(s['snapshot-id']) === second.snapshotId)!;
  expect(head.summary).toMatchObject({ operation: 'append', 'added-records': '2', 'total-records': '5', 'total-data-files': '2' });
  // snapshots=refs: only what a branch or tag points at.
  const refsOnly = await catalog().get(`/v1/${wh.id}/namespaces/lake/tables/sales`).query({ snapshots: 'refs' }).set(bearer(rw));
  expect(refsOnly.status).toBe(200);
  expect(refsOnly.body.metadata.snapshots.map((s: { 'snapshot-id': number }) => BigInt(s['snapshot-id']))).toEqual([second.snapshotId]);
  expect((await catalog().get(`/v1/${wh.id}/namespaces/lake/tables/sales`).query({ snapshots: 'all' }).set(bearer(rw))).body.metadata.snapshots).toHaveLength(2);

  // icebird, an independent reader, over plain HTTP.
  const rows = await readWithIcebird(stack().s3_url, wh.tableBucket, loaded as never);
  expect(rows.map((r: any) => [Number(r.id), r.name]).sort()).toEqual([[1, 'ada'], [2, 'bo'], [3, null], [4, 'cy'], [5, 'di']]);

  // DuckDB reads the data file itself, with the Iceberg field ids in its Parquet schema.
  const { s3 } = await vendedS3(ref('sales'));
  const obj = await s3.send(new GetObjectCommand({ Bucket: wh.tableBucket, Key: keyOf(wh.tableBucket, second.dataPath) }));
  const local = join(dir, 'part.parquet');
  writeFileSync(local, await obj.Body!.transformToByteArray());
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  const data = (await duck.runAndReadAll(`SELECT id, name FROM read_parquet('${local}') ORDER BY id`)).getRowObjects();
  expect(data.map((r) => [Number(r.id), r.name])).toEqual([[4, 'cy'], [5, 'di']]);
  const ids = (await duck.runAndReadAll(`SELECT name, field_id FROM parquet_schema('${local}') WHERE name IN ('id', 'name') ORDER BY name`)).getRowObjects();
  expect(ids.map((r) => [r.name, Number(r.field_id)])).toEqual([['id', 1], ['name', 2]]);

  // The engine's row counting agrees: from the snapshot summary.
  const counted = await countRows(head as never, async () => new Uint8Array());
  expect(counted).toMatchObject({ rows: 5, rows_source: 'snapshot_summary', rows_is_exact: true });
}, 60_000);

test('20 concurrent appends to one table, retrying on 409, all land exactly once', async () => {
  const c = icebergClient(wh.id, rw);
  // Every file counts as big (a 1-byte target), so no compaction run lands between the appends this test counts.
  await c.createTable({ namespace: ['lake'] }, { name: 'busy', schema: schema as never, properties: { 'write.target-file-size-bytes': '1' } });
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => append('busy', [{ id: BigInt(i), name: `r${i}` }], 100)));
  expect(results.some((r) => r.tries > 1)).toBe(true);
  const loaded = await c.loadTable({ namespace: ['lake'], name: 'busy' });
  expect(loaded.snapshots).toHaveLength(20);
  // The chain from the head back to the first snapshot holds every append once.
  const byId = new Map(loaded.snapshots!.map((s) => [BigInt(s['snapshot-id']), s]));
  const chain: bigint[] = [];
  for (let id: bigint | undefined = BigInt(loaded['current-snapshot-id'] as number); id !== undefined; ) {
    chain.push(id);
    const p: number | undefined | null = byId.get(id)!['parent-snapshot-id'] as never;
    id = p === undefined || p === null ? undefined : BigInt(p);
  }
  expect(new Set(chain)).toEqual(new Set(results.map((r) => r.snapshotId)));
  const head = byId.get(BigInt(loaded['current-snapshot-id'] as number))!;
  expect(head.summary).toMatchObject({ 'total-records': '20', 'total-data-files': '20' });
  expect(loaded['last-sequence-number']).toBe(20);
}, 120_000);
