// readSnapshotRows against an in-memory object store standing in for S3: a
// table written with packages/iceberg's writers (two appends, then a position
// delete), read through the signing fetch. The whole path over the real stack
// is tests/e2e/cli-rows.test.ts.
import {
  buildAppend, EntryStatus, FileContent, parquetDataFile, readManifestList, stringifyJson, writeManifest, writeManifestList, writeParquetDataFile,
  type PartitionSpec, type Schema,
} from '@floe/iceberg';
import { CliError } from './errors';
import { readSnapshotRows } from './table-rows';

const schema: Schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'msg', required: false, type: 'string' }] };
const spec: PartitionSpec = { 'spec-id': 0, fields: [] };
const location = 's3://bucket/wh/t';
const config = { 's3.access-key-id': 'AKID', 's3.secret-access-key': 'SECRET', 's3.session-token': 'SESSION', 's3.endpoint': 'http://store.test/', 's3.region': 'eu-west-1' };

const files = new Map<string, Uint8Array>();
const requests: Request[] = [];

/** S3, path-style at http://store.test: whole objects and byte ranges; an XML error for a missing key. */
const store = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const req = input instanceof Request ? input : new Request(input, init);
  requests.push(req);
  const bytes = files.get(`s3:/${new URL(req.url).pathname}`);
  if (!bytes) return new Response('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>', { status: 404 });
  const range = /bytes=(\d+)-(\d*)/.exec(req.headers.get('range') ?? '');
  if (!range) return new Response(Buffer.from(bytes), { status: 200 });
  const end = range[2] ? Number(range[2]) + 1 : bytes.length;
  return new Response(Buffer.from(bytes.subarray(Number(range[1]), end)), { status: 206 });
}) as typeof fetch;

const read = async (path: string) => files.get(path)!;
const snapshots: any[] = [];

async function append(id: bigint, rows: Array<{ id: bigint; msg: string | null }>): Promise<string> {
  const { bytes, stats } = writeParquetDataFile({ schema, rows });
  const dataPath = `${location}/data/${id}.parquet`;
  files.set(dataPath, bytes);
  const r = await buildAppend({
    formatVersion: 2, schema, spec, parent: snapshots.at(-1) ?? null, lastSequenceNumber: BigInt(snapshots.length), files: [parquetDataFile(dataPath, stats)],
    snapshotId: id, manifestPath: `${location}/metadata/m${id}.avro`, manifestListPath: `${location}/metadata/snap-${id}.avro`, read, timestampMs: 1_700_000_000_000,
  });
  r.uploads.forEach((u) => files.set(u.path, u.bytes));
  snapshots.push(r.snapshot);
  return dataPath;
}

/** A snapshot adding one position-delete file (rows `positions` of `dataPath`) on top of the last. */
async function deletePositions(id: bigint, dataPath: string, positions: bigint[]): Promise<void> {
  const deleteSchema: Schema = { type: 'struct', fields: [{ id: 2147483546, name: 'file_path', required: true, type: 'string' }, { id: 2147483545, name: 'pos', required: true, type: 'long' }] };
  const { bytes, stats } = writeParquetDataFile({ schema: deleteSchema, rows: positions.map((pos) => ({ file_path: dataPath, pos })) });
  const deletePath = `${location}/data/${id}-deletes.parquet`;
  files.set(deletePath, bytes);
  const manifest = writeManifest({
    formatVersion: 2, schema, spec, content: 'deletes', snapshotId: id, path: `${location}/metadata/m${id}.avro`,
    entries: [{ status: EntryStatus.ADDED, snapshot_id: null, sequence_number: null, file_sequence_number: null, data_file: { ...parquetDataFile(deletePath, stats), content: FileContent.POSITION_DELETES } }],
  });
  files.set(manifest.manifestFile.manifest_path, manifest.bytes);
  const parent = snapshots.at(-1);
  const list = writeManifestList({
    formatVersion: 2, snapshotId: id, parentSnapshotId: parent['snapshot-id'], sequenceNumber: BigInt(snapshots.length + 1),
    manifests: [...readManifestList(files.get(parent['manifest-list'])!).manifests, manifest.manifestFile],
  });
  const listPath = `${location}/metadata/snap-${id}.avro`;
  files.set(listPath, list.bytes);
  snapshots.push({ 'snapshot-id': id, 'parent-snapshot-id': parent['snapshot-id'], 'sequence-number': BigInt(snapshots.length + 1), 'timestamp-ms': 1_700_000_000_001, 'manifest-list': listPath, summary: { operation: 'delete' }, 'schema-id': 0 });
}

/** The table's metadata at `head`, as the catalog's load answer gives it. */
function loaded(head: bigint | null) {
  const metadata = {
    'format-version': 2, 'table-uuid': '9c12d441-03fe-4693-9a96-a0705ddf69c1', location, 'last-sequence-number': snapshots.length, 'last-updated-ms': 1_700_000_000_001,
    'last-column-id': 2, schemas: [schema], 'current-schema-id': 0, 'partition-specs': [spec], 'default-spec-id': 0, 'last-partition-id': 999,
    'sort-orders': [{ 'order-id': 0, fields: [] }], 'default-sort-order-id': 0, properties: {},
    'current-snapshot-id': head ?? -1, snapshots: snapshots.filter((s) => head !== null && BigInt(s['snapshot-id']) <= head),
  };
  return { metadata: JSON.parse(stringifyJson(metadata)), config, currentSnapshotId: head === null ? null : String(head) };
}

let first: string;
beforeAll(async () => {
  first = await append(1n, [{ id: 1n, msg: 'a' }, { id: 2n, msg: 'b' }, { id: 3n, msg: null }]);
  await append(2n, [{ id: 4n, msg: 'd' }, { id: 5n, msg: 'e' }]);
  await deletePositions(3n, first, [1n]);
});
beforeEach(() => { requests.length = 0; });

const ids = (rows: Array<Record<string, unknown>>) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

test('every row of the snapshot, the columns of the current schema, the count from the data files', async () => {
  const real = globalThis.fetch;
  const r = await readSnapshotRows(loaded(2n), 'wh.t', 20, store);
  expect(r).toMatchObject({ table: 'wh.t', total: 5, snapshotId: '2', columns: [{ id: 1, name: 'id', type: 'long' }, { id: 2, name: 'msg', type: 'string' }] });
  expect(ids(r.rows)).toEqual([1, 2, 3, 4, 5]);
  expect(r.rows.find((row) => row.id === 3n)).toEqual({ id: 3n, msg: null });
  expect(globalThis.fetch).toBe(real);
});

test('every object request goes path-style to the vended endpoint, signed with the vended session', async () => {
  await readSnapshotRows(loaded(2n), 'wh.t', 20, store);
  expect(requests.length).toBeGreaterThan(0);
  for (const req of requests) {
    expect(req.url).toMatch(/^http:\/\/store\.test\/bucket\/wh\/t\//);
    expect(req.headers.get('authorization')).toMatch(/^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/eu-west-1\/s3\/aws4_request, /);
    expect(req.headers.get('x-amz-security-token')).toBe('SESSION');
  }
});

test('a limit reads only the first rows, across data files, and still counts them all', async () => {
  const r = await readSnapshotRows(loaded(2n), 'wh.t', 4, store);
  expect(r.rows).toHaveLength(4);
  expect(new Set(ids(r.rows)).size).toBe(4);
  expect(r.total).toBe(5);
});

test('with delete files the snapshot is read whole: deleted rows are gone from the rows and the count', async () => {
  const all = await readSnapshotRows(loaded(3n), 'wh.t', 20, store);
  expect(ids(all.rows)).toEqual([1, 3, 4, 5]);
  expect(all).toMatchObject({ total: 4, snapshotId: '3' });
  const two = await readSnapshotRows(loaded(3n), 'wh.t', 2, store);
  expect(two.rows).toEqual(all.rows.slice(0, 2));
  expect(two.total).toBe(4);
});

test('no snapshot: no rows, no object request', async () => {
  expect(await readSnapshotRows(loaded(null), 'wh.t', 20, store)).toMatchObject({ rows: [], total: 0, snapshotId: null });
  expect(requests).toHaveLength(0);
});

test("the store's refusal fails with its code and message; the real fetch is back afterwards", async () => {
  const real = globalThis.fetch;
  const listPath = snapshots[1]['manifest-list'];
  const saved = files.get(listPath)!;
  files.delete(listPath);
  try {
    await expect(readSnapshotRows(loaded(2n), 'wh.t', 20, store)).rejects.toThrow(
      new CliError('the object store refused reading bucket/wh/t/metadata/snap-2.avro: HTTP 404 NoSuchKey: The specified key does not exist.'));
  } finally {
    files.set(listPath, saved);
  }
  expect(globalThis.fetch).toBe(real);
  await expect(readSnapshotRows({ ...loaded(2n), config: {} }, 'wh.t', 20, store)).rejects.toThrow('the catalog vended no storage credentials for this table');
});
