// Interop: a table built only from this folder's writers, read by icebird, an
// independent Iceberg reader (its own Avro decoder, hyparquet for data).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { icebergRead } from 'icebird';
import { buildAppend } from './append.js';
import { stringifyJson } from '../metadata/json.js';
import { parquetDataFile, writeParquetDataFile } from './parquet.js';
import { BIG_PARENT_ID, BIG_SNAPSHOT_ID, memoryStore, schema, unpartitioned } from './test-fixtures.js';

const store = memoryStore();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const bytes = store.files.get(`${base}${req.url}`);
    if (!bytes) return void res.writeHead(404).end();
    // icebird reads Parquet footers with range requests
    const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Number(range[2]) + 1 : bytes.length;
      res.writeHead(206, { 'content-range': `bytes ${start}-${end - 1}/${bytes.length}`, 'content-length': end - start });
      return void res.end(Buffer.from(bytes.subarray(start, end)));
    }
    res.writeHead(200, { 'content-length': bytes.length }).end(Buffer.from(bytes));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('icebird reads a v2 table written by append + parquet', async () => {
  const table = `${base}/wh/t`;
  const rowsA = [{ id: 1n, category: 'a', ts: new Date(0), amount: '1.25' }];
  const rowsB = [{ id: 2n, category: 'b', ts: null, amount: null }, { id: 3n, category: null, ts: new Date(5000), amount: '-3.00' }];
  const snapshots = [];
  let parent = null;
  for (const [i, rows] of [rowsA, rowsB].entries()) {
    const { bytes, stats } = writeParquetDataFile({ schema, rows });
    const path = `${table}/data/f${i}.parquet`;
    store.put(path, bytes);
    const r = await buildAppend({
      formatVersion: 2, schema, spec: unpartitioned, parent, lastSequenceNumber: BigInt(i), files: [parquetDataFile(path, stats)],
      snapshotId: i === 0 ? BIG_PARENT_ID : BIG_SNAPSHOT_ID, manifestPath: `${table}/metadata/m${i}.avro`,
      manifestListPath: `${table}/metadata/snap-${i}.avro`, read: store.read, timestampMs: 1_700_000_000_000 + i,
    });
    r.uploads.forEach((u) => store.put(u.path, u.bytes));
    snapshots.push(r.snapshot);
    parent = r.snapshot;
  }
  const metadata = {
    'format-version': 2, 'table-uuid': '9c12d441-03fe-4693-9a96-a0705ddf69c1', location: table, 'last-sequence-number': 2,
    'last-updated-ms': 1_700_000_000_001, 'last-column-id': 4, schemas: [schema], 'current-schema-id': 0,
    'partition-specs': [unpartitioned], 'default-spec-id': 0, 'last-partition-id': 999,
    'sort-orders': [{ 'order-id': 0, fields: [] }], 'default-sort-order-id': 0, properties: {},
    'current-snapshot-id': BIG_SNAPSHOT_ID, snapshots,
    'snapshot-log': snapshots.map((s) => ({ 'snapshot-id': s['snapshot-id'], 'timestamp-ms': s['timestamp-ms'] })),
    'metadata-log': [], refs: { main: { 'snapshot-id': BIG_SNAPSHOT_ID, type: 'branch' } },
  };
  store.put(`${table}/metadata/v1.metadata.json`, new TextEncoder().encode(stringifyJson(metadata)));
  store.put(`${table}/metadata/version-hint.text`, new TextEncoder().encode('1'));

  const rows = await icebergRead({ tableUrl: table, metadataFileName: 'v1.metadata.json' });
  const byId = new Map(rows.map((r: any) => [Number(r.id), r]));
  expect([...byId.keys()].sort()).toEqual([1, 2, 3]);
  expect(byId.get(1)).toMatchObject({ category: 'a' });
  expect(byId.get(3)).toMatchObject({ category: null });
});
