// An upgrade from a version that stored secrets in plain text: the stack is
// stopped, its database put back the way the previous release left it (the
// warehouses' storage secret keys as plain text, the signing keys' private
// JWKs as JSONB, the sealing migration not applied), and started again. The
// start migrates: every secret is sealed, and everything that uses one still
// works — an identity token, the catalog's token exchange, load-table with
// vended credentials, the control plane's credentials route, a sink's send.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import pg from 'pg';
import request from 'supertest';
import { isSealed } from '@floe/db/sealed';
import { restartPrivateStack, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { stackKeyring } from '../support/keyring';
import { orgAdminKey } from '../support/stack-org';
import { adminStorage } from '../support/store';

const SEALING_MIGRATION = '20261124012943_sealed_secrets';

let stateFile: string;
let state: StackState;

beforeAll(async () => {
  ({ state, stateFile } = await startPrivateStack('sealing', { FLOE_LOG_LEVEL: 'warn' }));
}, 240_000);

afterAll(async () => {
  if (stateFile) await stopPrivateStack(stateFile);
}, 120_000);

async function withDb<T>(fn: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  try {
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

async function listStatus(accessKeyId: string, secretAccessKey: string, sessionToken: string | undefined, bucket: string, prefix = ''): Promise<number> {
  try {
    const out = await adminStorage().s3As({ accessKeyId, secretAccessKey, sessionToken }).send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1 }));
    return out.$metadata.httpStatusCode ?? 0;
  } catch (err) {
    return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? -1;
  }
}

test('a stack whose database holds plaintext secrets seals them at its next start and keeps working', async () => {
  // A catalog with a table and a sink, made by the current version.
  const key = await orgAdminKey(state, 'sealing');
  const auth = { Authorization: `Bearer ${key}` };
  const api = () => request(state.base_url);
  const project = await api().post('/v1/projects').set(auth).send({ name: 'p-sealing' }).expect(201);
  const w = (await api().post('/v1/warehouses').set(auth).send({ project_id: project.body.project_id, name: 'lake' }).expect(201)).body;
  await api().post('/v1/tables').set(auth).send({ warehouse_id: w.warehouse_id, namespace: 'ev', name: 't', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }] } }).expect(201);
  const sink = (await api().post('/v1/sinks').set(auth).send({ name: 's', table: 'ev.t', warehouse: w.warehouse_id }).expect(201)).body;
  const kidBefore = decodeProtectedHeader((await api().post('/v1/tokens').send({ api_key: key }).expect(200)).body.access_token).kid;

  // The previous release's database: plaintext secrets, JSONB private keys, the sealing migration not yet applied.
  const keyring = stackKeyring(state);
  const plain = await withDb(async (db) => {
    const { rows: [row] } = await db.query(`SELECT storage_access_key, storage_secret_key, storage_ro_secret_key FROM warehouses WHERE id = $1`, [w.warehouse_id]);
    const rw = keyring.open(row.storage_secret_key);
    const ro = keyring.open(row.storage_ro_secret_key);
    await db.query(`UPDATE warehouses SET storage_secret_key = $2, storage_ro_secret_key = $3 WHERE id = $1`, [w.warehouse_id, rw, ro]);
    for (const k of (await db.query(`SELECT kid, private_jwk FROM signing_keys`)).rows) {
      await db.query(`UPDATE signing_keys SET private_jwk = $2 WHERE kid = $1`, [k.kid, keyring.open(k.private_jwk)]);
    }
    await db.query(`ALTER TABLE signing_keys ALTER COLUMN private_jwk TYPE jsonb USING private_jwk::jsonb`);
    await db.query(`DELETE FROM _prisma_migrations WHERE migration_name = $1`, [SEALING_MIGRATION]);
    const { rows: [jwk] } = await db.query(`SELECT private_jwk->>'d' AS d FROM signing_keys WHERE kid = $1`, [kidBefore]);
    expect(jwk.d).toEqual(expect.any(String));
    return { accessKey: row.storage_access_key as string, rw, ro };
  });
  // As the old version stored it, the secret key is usable by whoever reads the row.
  expect(await listStatus(plain.accessKey, plain.rw, undefined, w.bucket)).toBe(200);

  state = await restartPrivateStack(stateFile, { FLOE_LOG_LEVEL: 'warn' });

  // Sealed, under the stack's key, opening to what was there.
  await withDb(async (db) => {
    const { rows: [row] } = await db.query(`SELECT storage_secret_key, storage_ro_secret_key FROM warehouses WHERE id = $1`, [w.warehouse_id]);
    expect([isSealed(row.storage_secret_key), isSealed(row.storage_ro_secret_key)]).toEqual([true, true]);
    expect([keyring.open(row.storage_secret_key), keyring.open(row.storage_ro_secret_key)]).toEqual([plain.rw, plain.ro]);
    expect(await listStatus(plain.accessKey, row.storage_secret_key, undefined, w.bucket)).toBe(403);
    const keys = (await db.query(`SELECT kid, private_jwk FROM signing_keys`)).rows;
    expect(keys.map((k) => isSealed(k.private_jwk))).toEqual(keys.map(() => true));
    expect((await db.query(`SELECT 1 FROM _prisma_migrations WHERE migration_name = $1 AND finished_at IS NOT NULL`, [SEALING_MIGRATION])).rowCount).toBe(1);
  });

  // Identity signs with the migrated key, and the JWKS verifies it.
  const token = (await api().post('/v1/tokens').send({ api_key: key }).expect(200)).body.access_token;
  expect(decodeProtectedHeader(token).kid).toBe(kidBefore);
  await jwtVerify(token, createLocalJWKSet((await api().get('/jwks.json').expect(200)).body), { issuer: state.base_url });

  // The catalog: token exchange, load-table with vended credentials that reach the table's files.
  const { client_id, client_secret } = (await api().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(auth).expect(200)).body.catalog_credential;
  const exchange = await request(state.catalog_url).post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials', client_id, client_secret }).expect(200);
  const loaded = await request(state.catalog_url).get(`/v1/${w.warehouse_id}/namespaces/ev/tables/t`)
    .set({ Authorization: `Bearer ${exchange.body.access_token}`, 'X-Iceberg-Access-Delegation': 'vended-credentials' }).expect(200);
  const vended = loaded.body['storage-credentials'][0].config;
  const prefix = `${String(loaded.body.metadata.location).replace(`s3://${w.bucket}/`, '')}/`;
  expect(await listStatus(vended['s3.access-key-id'], vended['s3.secret-access-key'], vended['s3.session-token'], w.bucket, prefix)).toBe(200);

  // The control plane vends through the catalog; the ingest gateway writes a batch as the warehouse.
  const credentials = await api().post('/v1/credentials').set(auth).send({ warehouse_id: w.warehouse_id, namespace: 'ev', name: 't' });
  expect(credentials.status).toBe(200);
  await api().post(`/v1/sinks/${sink.sink_id}`).set({ Authorization: `Bearer ${sink.send_key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'after-upgrade' })
    .send(JSON.stringify([{ id: 1 }])).expect(202);
}, 120_000);
