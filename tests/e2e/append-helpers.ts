// Appending rows the way an engine does: load the table with vended
// credentials, write a Parquet data file and manifests (packages/iceberg)
// under its location, commit add-snapshot + set-snapshot-ref with iceberg-js,
// and on 409 rebuild the snapshot on the new head (the data file stays).
import { randomUUID } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { IcebergRestCatalog } from 'iceberg-js';
import {
  EntryStatus, buildAppend, parseJson, parquetDataFile, readManifest, readManifestList, stringifyJson, writeDeletionVector, writeManifest, writeManifestList, writeParquetDataFile,
  type DataFile,
} from '@floe/iceberg';
import { validatingFetch } from '../support/openapi';
import { catalog } from './catalog-helpers';
import { bearer, stack } from './helpers';

export interface TableRef {
  /** The catalog prefix (warehouse id). */
  warehouseId: string;
  bucket: string;
  /** A catalog token with write access. */
  token: string;
  namespace: string;
  table: string;
}

export const keyOf = (bucket: string, path: string) => path.slice(`s3://${bucket}/`.length);

export function icebergClient(warehouseId: string, token: string): IcebergRestCatalog {
  return new IcebergRestCatalog({ baseUrl: stack().catalog_url, fetch: validatingFetch(stack().catalog_url), warehouse: warehouseId, auth: { type: 'bearer', token } });
}

/** Reads and writes under the table's location with the session the catalog vends. */
export async function vendedS3(t: TableRef): Promise<{ s3: S3Client; location: string; metadata: any }> {
  const ns = encodeURIComponent(t.namespace.split('.').join('\u001f'));
  const res = await catalog().get(`/v1/${t.warehouseId}/namespaces/${ns}/tables/${t.table}`)
    .set(bearer(t.token)).set('X-Iceberg-Access-Delegation', 'vended-credentials');
  if (res.status !== 200) throw new Error(`loading ${t.namespace}.${t.table} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { s3: sessionS3(res.body.config), location: res.body.metadata.location, metadata: res.body.metadata };
}

/** An S3 client on a storage session the catalog vended (a load's `config`, or a storage credential's). */
export function sessionS3(c: Record<string, string>): S3Client {
  return new S3Client({
    endpoint: c['s3.endpoint'], region: c['s3.region'], forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: c['s3.access-key-id'], secretAccessKey: c['s3.secret-access-key'], sessionToken: c['s3.session-token'] },
  });
}

/**
 * Appends `rows` as one data file. iceberg-js carries snapshot ids as JSON
 * numbers, exact only below 2^53 (Floe's own writers mint ids under it); on
 * a table a Java-style writer shares (63-bit ids) pass `lossless` and the
 * commit goes over the REST route with every id exact.
 */
/** Reads and writes table objects by path: the vended session's, or a caller's own (requests the catalog signs, say). */
export interface TableObjects {
  read(path: string): Promise<Uint8Array>;
  put(path: string, bytes: Uint8Array): Promise<void>;
}

const objectsOf = (s3: S3Client, bucket: string): TableObjects => ({
  read: async (p) => new Uint8Array(await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(bucket, p) }))).Body!.transformToByteArray()),
  put: async (p, bytes) => { await s3.send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(bucket, p), Body: bytes })); },
});

export async function appendRows(
  t: TableRef, rows: Array<Record<string, unknown>>, attempts = 1,
  o: { lossless?: boolean; partition?: Record<string, unknown>; objects?: TableObjects } = {},
): Promise<{ snapshotId: bigint; dataPath: string; tries: number }> {
  const load = async () => {
    const v = o.objects ? { objects: o.objects, ...(await loadedPlain(t)) } : await (async () => {
      const { s3, ...rest } = await vendedS3(t);
      return { objects: objectsOf(s3, t.bucket), ...rest };
    })();
    return o.lossless ? { ...v, metadata: await losslessMetadata(t) } : v;
  };
  let { objects, location, metadata } = await load();
  const read = (p: string) => objects.read(p);
  const tableSchema = metadata.schemas.find((s: any) => s['schema-id'] === metadata['current-schema-id']);
  const { bytes, stats } = writeParquetDataFile({ schema: tableSchema, rows });
  const dataPath = `${location}/data/${randomUUID()}.parquet`;
  await objects.put(dataPath, bytes);
  for (let tries = 1; ; tries++) {
    const parent = metadata['current-snapshot-id'] && metadata['current-snapshot-id'] !== -1
      ? metadata.snapshots.find((s: any) => s['snapshot-id'] === metadata['current-snapshot-id']) : null;
    // iceberg-js sends plain JSON numbers, so snapshot ids stay below 2^53 here.
    const snapshotId = BigInt(Math.floor(Math.random() * 2 ** 52));
    const built = await buildAppend({
      formatVersion: metadata['format-version'], schema: tableSchema, spec: metadata['partition-specs'][0], parent,
      lastSequenceNumber: BigInt(metadata['last-sequence-number']), files: [parquetDataFile(dataPath, stats, (o.partition ?? {}) as never)],
      nextRowId: metadata['format-version'] >= 3 ? BigInt(metadata['next-row-id'] ?? 0) : undefined,
      snapshotId, manifestPath: `${location}/metadata/${randomUUID()}-m0.avro`, manifestListPath: `${location}/metadata/snap-${snapshotId}-${randomUUID()}.avro`, read,
    });
    for (const u of built.uploads) await objects.put(u.path, u.bytes);
    try {
      if (o.lossless) {
        const res = await catalog().post(`/v1/${t.warehouseId}/namespaces/${encodeURIComponent(t.namespace.split('.').join('\u001f'))}/tables/${t.table}`)
          .set(bearer(t.token)).set('Content-Type', 'application/json')
          .send(stringifyJson({
            requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': parent ? parent['snapshot-id'] : null }],
            updates: [{ action: 'add-snapshot', snapshot: built.snapshot }, { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshotId }],
          }));
        if (res.status !== 200) throw Object.assign(new Error(`commit: ${res.status} ${res.text}`), { status: res.status });
        return { snapshotId, dataPath, tries };
      }
      await icebergClient(t.warehouseId, t.token).commitTable({ namespace: t.namespace.split('.'), name: t.table }, {
        requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': parent ? parent['snapshot-id'] : null }],
        updates: [
          { action: 'add-snapshot', snapshot: JSON.parse(stringifyJson(built.snapshot)) },
          { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': Number(snapshotId) },
        ],
      } as never);
      return { snapshotId, dataPath, tries };
    } catch (err) {
      if ((err as { status?: number }).status !== 409 || tries >= attempts) throw err;
      ({ objects, location, metadata } = await load());
    }
  }
}

/** The table's metadata and location as a plain JSON load gives them (no credentials asked for). */
async function loadedPlain(t: TableRef): Promise<{ location: string; metadata: any }> {
  const ns = encodeURIComponent(t.namespace.split('.').join('\u001f'));
  const res = await catalog().get(`/v1/${t.warehouseId}/namespaces/${ns}/tables/${t.table}`).set(bearer(t.token));
  if (res.status !== 200) throw new Error(`loading ${t.namespace}.${t.table} failed: ${res.status}`);
  return { location: res.body.metadata.location, metadata: res.body.metadata };
}

/** The table's metadata with every long exact (snapshot ids past 2^53 as bigint). */
async function losslessMetadata(t: TableRef): Promise<any> {
  const ns = encodeURIComponent(t.namespace.split('.').join('\u001f'));
  const res = await catalog().get(`/v1/${t.warehouseId}/namespaces/${ns}/tables/${t.table}`).set(bearer(t.token));
  if (res.status !== 200) throw new Error(`loading ${t.namespace}.${t.table} failed: ${res.status}`);
  return (parseJson(res.text) as any).metadata;
}

/** The data files of the table's current snapshot, from its manifest list and manifests (live entries only). */
export async function dataFilesOf(s3: S3Client, bucket: string, metadata: any): Promise<DataFile[]> {
  const read = async (p: string) => new Uint8Array(await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(bucket, p) }))).Body!.transformToByteArray());
  const head = metadata.snapshots.find((s: any) => s['snapshot-id'] === metadata['current-snapshot-id']);
  const manifests = readManifestList(await read(head['manifest-list'])).manifests;
  const entries = (await Promise.all(manifests.map(async (m) => readManifest(await read(m.manifest_path), m).entries))).flat();
  return entries.filter((e) => e.status !== EntryStatus.DELETED).map((e) => e.data_file);
}

/**
 * Commits a `delete` snapshot as an engine does: position deletes of `positions` in `dataPath` —
 * a Parquet position delete file (v2) or a Puffin deletion vector (v3) — or, with `equalityIds`,
 * an equality delete file on `id` (v2).
 */
export async function deleteRows(ref: TableRef, dataPath: string, positions: bigint[], equalityIds?: bigint[], partition: Record<string, unknown> = {}): Promise<void> {
  const { s3, location, metadata } = await vendedS3(ref);
  const v = metadata['format-version'];
  const { put, read } = objectsOf(s3, ref.bucket);
  let file: DataFile;
  if (equalityIds) {
    const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };
    const { bytes, stats } = writeParquetDataFile({ schema: schema as never, rows: equalityIds.map((id) => ({ id })) });
    const p = `${location}/data/${randomUUID()}-eq-deletes.parquet`;
    await put(p, bytes);
    file = { content: 2, file_path: p, file_format: 'parquet', partition: partition as never, equality_ids: [1], ...stats };
  } else if (v >= 3) {
    const blob = writeDeletionVector(positions);
    const footer = Buffer.from(JSON.stringify({ blobs: [{ type: 'deletion-vector-v1', fields: [2147483645], 'snapshot-id': -1, 'sequence-number': -1, offset: 4, length: blob.length, properties: { 'referenced-data-file': dataPath, cardinality: String(positions.length) } }] }));
    const size = Buffer.alloc(4);
    size.writeUInt32LE(footer.length);
    const puffin = Buffer.concat([Buffer.from('PFA1'), blob, Buffer.from('PFA1'), footer, size, Buffer.alloc(4), Buffer.from('PFA1')]);
    const p = `${location}/data/${randomUUID()}-deletes.puffin`;
    await put(p, puffin);
    file = {
      content: 1, file_path: p, file_format: 'puffin', partition: partition as never, record_count: BigInt(positions.length), file_size_in_bytes: BigInt(puffin.length),
      referenced_data_file: dataPath, content_offset: 4n, content_size_in_bytes: BigInt(blob.length),
    };
  } else {
    const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 2147483546, name: 'file_path', required: true, type: 'string' }, { id: 2147483545, name: 'pos', required: true, type: 'long' }] };
    const { bytes, stats } = writeParquetDataFile({ schema: schema as never, rows: positions.map((pos) => ({ file_path: dataPath, pos })) });
    const p = `${location}/data/${randomUUID()}-deletes.parquet`;
    await put(p, bytes);
    // As Java's writers do, the file_path bounds are kept whole (not truncated): a reader knows the one file it names.
    const whole = new TextEncoder().encode(dataPath);
    file = {
      content: 1, file_path: p, file_format: 'parquet', partition: partition as never, ...stats,
      lower_bounds: new Map([...(stats.lower_bounds ?? []), [2147483546, whole]]), upper_bounds: new Map([...(stats.upper_bounds ?? []), [2147483546, whole]]),
    };
  }
  const head = metadata.snapshots.find((s: any) => s['snapshot-id'] === metadata['current-snapshot-id']);
  const snapshotId = BigInt(Math.floor(Math.random() * 2 ** 52));
  const tableSchema = metadata.schemas.find((s: any) => s['schema-id'] === metadata['current-schema-id']);
  const mPath = `${location}/metadata/${randomUUID()}-d.avro`;
  const manifest = writeManifest({
    formatVersion: v, schema: tableSchema, spec: metadata['partition-specs'][0], content: 'deletes', snapshotId, path: mPath,
    entries: [{ status: EntryStatus.ADDED, snapshot_id: snapshotId, sequence_number: null, file_sequence_number: null, data_file: file }],
  });
  const seq = BigInt(metadata['last-sequence-number']) + 1n;
  const list = writeManifestList({
    formatVersion: v, snapshotId, parentSnapshotId: BigInt(head['snapshot-id']), sequenceNumber: seq, firstRowId: v >= 3 ? BigInt(metadata['next-row-id']) : undefined,
    manifests: [manifest.manifestFile, ...readManifestList(await read(head['manifest-list'])).manifests],
  });
  const lPath = `${location}/metadata/snap-${snapshotId}-${randomUUID()}.avro`;
  await put(mPath, manifest.bytes);
  await put(lPath, list.bytes);
  const total = (k: string, plus: number) => String(Number(head.summary[k] ?? 0) + plus);
  const snapshot = {
    'snapshot-id': snapshotId, 'parent-snapshot-id': BigInt(head['snapshot-id']), 'sequence-number': seq, 'timestamp-ms': BigInt(Date.now()), 'manifest-list': lPath,
    summary: {
      ...Object.fromEntries(Object.entries(head.summary).filter(([k]) => k.startsWith('total-'))), operation: 'delete', 'added-delete-files': '1',
      'total-delete-files': total('total-delete-files', 1),
      ...(equalityIds
        ? { 'added-equality-deletes': String(equalityIds.length), 'total-equality-deletes': total('total-equality-deletes', equalityIds.length) }
        : { 'added-position-deletes': String(positions.length), 'total-position-deletes': total('total-position-deletes', positions.length) }),
    },
    'schema-id': tableSchema['schema-id'], ...(v >= 3 ? { 'first-row-id': BigInt(metadata['next-row-id']), 'added-rows': list.addedRows } : {}),
  };
  await icebergClient(ref.warehouseId, ref.token).commitTable({ namespace: [ref.namespace], name: ref.table }, {
    requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': head['snapshot-id'] }],
    updates: [{ action: 'add-snapshot', snapshot: JSON.parse(stringifyJson(snapshot)) }, { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': Number(snapshotId) }],
  } as never);
}
