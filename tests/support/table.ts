import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { adminStorage } from './store';
import type { TestWarehouse } from './warehouse';

// A v2 table as an engine or the catalog would leave it: a metadata file and a
// data file in the table bucket, written by the warehouse's own identity, and
// the catalog's pointer row. Until the catalog's create route exists (it needs
// packages/iceberg's engine), table-route tests start from this.

export interface TestTable {
  location: string;
  metadataLocation: string;
  tableUuid: string;
  /** A snapshot id above 2^53: exactness across the catalog is part of the test. */
  snapshotId: string;
}

export async function registerTestTable(
  databaseUrl: string, wh: TestWarehouse, rwKeys: { accessKeyId: string; secretAccessKey: string }, namespace: string[], name: string,
): Promise<TestTable> {
  const tableUuid = randomUUID();
  const prefix = `${namespace.join('/')}/${name}-${tableUuid.replace(/-/g, '')}`;
  const location = `s3://${wh.tableBucket}/${prefix}`;
  const metadataLocation = `${location}/metadata/00000-${randomUUID()}.metadata.json`;
  const snapshotId = '9007199254740993';
  const metadata = `{"format-version":2,"table-uuid":"${tableUuid}","location":"${location}","last-sequence-number":1,`
    + `"last-updated-ms":${Date.now()},"last-column-id":2,"current-schema-id":0,`
    + `"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"v","required":false,"type":"string"}]}],`
    + `"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,"default-sort-order-id":0,`
    + `"sort-orders":[{"order-id":0,"fields":[]}],"properties":{"owner":"test"},"current-snapshot-id":${snapshotId},`
    + `"refs":{"main":{"snapshot-id":${snapshotId},"type":"branch"}},`
    + `"snapshots":[{"snapshot-id":${snapshotId},"sequence-number":1,"timestamp-ms":${Date.now()},"manifest-list":"${location}/metadata/snap-${snapshotId}.avro","summary":{"operation":"append","total-records":"3"},"schema-id":0}],`
    + `"snapshot-log":[],"metadata-log":[]}`;
  const s3 = adminStorage().s3As(rwKeys);
  await s3.send(new PutObjectCommand({ Bucket: wh.tableBucket, Key: metadataLocation.slice(`s3://${wh.tableBucket}/`.length), Body: metadata }));
  await s3.send(new PutObjectCommand({ Bucket: wh.tableBucket, Key: `${prefix}/data/part-0.parquet`, Body: 'not really parquet' }));
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    for (let i = 1; i <= namespace.length; i++) {
      await pool.query(`INSERT INTO catalog_namespaces (warehouse_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [wh.id, namespace.slice(0, i).join('\u001f')]);
    }
    await pool.query(
      `INSERT INTO catalog_tables (id, warehouse_id, namespace, name, kind, metadata_location, location, version) VALUES ($1, $2, $3, $4, 'table', $5, $6, 1)`,
      [randomUUID(), wh.id, namespace.join('\u001f'), name, metadataLocation, location],
    );
  } finally {
    await pool.end();
  }
  return { location, metadataLocation, tableUuid, snapshotId };
}
