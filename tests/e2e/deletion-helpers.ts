import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { appendRows, keyOf } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, gateway, newWarehouse } from './control-plane-helpers';
import { sinkTestSchema } from './sink-helpers';
import { stack } from './helpers';

// A catalog worth deleting: a table `events.clicks` with rows appended the
// way an engine does, its write-level catalog credential and a storage
// session vended for the table.

export type Credential = { client_id: string; client_secret: string };

/** The catalog's token exchange as PyIceberg sends it (form); the status. */
export async function exchangeStatus(c: Credential): Promise<number> {
  const res = await fetch(`${stack().catalog_url}/v1/oauth/tokens`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret }),
  });
  return res.status;
}

export async function catalogWithRows(apiKey: string, projectId: string) {
  const w = await newWarehouse(apiKey, projectId);
  await gateway().post('/v1/tables').set(bearer(apiKey)).send({ warehouse_id: w.warehouse_id, namespace: 'events', name: 'clicks', schema: sinkTestSchema }).expect(201);
  const conn = await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level: 'write' }).set(bearer(apiKey)).expect(200);
  const credential = conn.body.catalog_credential as Credential;
  const catalogToken = await token(credential.client_id, credential.client_secret);
  const rows = [{ id: 1n, msg: 'one' }, { id: 2n, msg: 'two' }];
  const { snapshotId, dataPath } = await appendRows({ warehouseId: w.warehouse_id, bucket: w.bucket, token: catalogToken, namespace: 'events', table: 'clicks' }, rows);
  const vended = await gateway().post('/v1/credentials').set(bearer(apiKey)).send({ warehouse_id: w.warehouse_id, namespace: 'events', name: 'clicks' }).expect(200);
  const c = vended.body.credentials;
  const session = new S3Client({
    endpoint: vended.body.endpoint, region: vended.body.region, forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: c.access_key_id, secretAccessKey: c.secret_access_key, sessionToken: c.session_token },
  });
  return { w, credential, catalogToken, snapshotId, session, rows, dataKey: keyOf(w.bucket, dataPath) };
}

/** The HTTP status a GET of `key` answers to a client; 200 when it reads. */
export async function readStatus(s3: S3Client, bucket: string, key: string): Promise<number> {
  try {
    await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return 200;
  } catch (err) {
    return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
  }
}
