import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { importJWK, SignJWT, jwtVerify, createLocalJWKSet } from 'jose';
import { isSealed } from '@floe/db/sealed';
import { stackKeyring } from '../support/keyring';
import { adminStorage } from '../support/store';
import { bearer, gateway, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { db, stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// A copy of the database alone reveals no usable secret: the warehouses'
// storage secret keys and the JWT private keys are sealed with the stack's
// data key. Each check has its positive control: the same value opened with
// the data key does work, so a refusal is the sealing, not a broken identity.

async function listAs(accessKeyId: string, secretAccessKey: string, bucket: string): Promise<number> {
  try {
    const out = await adminStorage().s3As({ accessKeyId, secretAccessKey }).send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1 }));
    return out.$metadata.httpStatusCode ?? 0;
  } catch (err) {
    return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? -1;
  }
}

test('a new catalog\'s storage secret keys are stored sealed: as stored they are refused by the object store', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const pool = db();
  let row: Record<string, string>;
  try {
    row = (await pool.query(
      `SELECT table_bucket, storage_access_key, storage_secret_key, storage_ro_access_key, storage_ro_secret_key FROM warehouses WHERE id = $1`,
      [w.warehouse_id])).rows[0];
  } finally {
    await pool.end();
  }
  const keyring = stackKeyring(stack());
  for (const [accessKey, stored] of [[row.storage_access_key, row.storage_secret_key], [row.storage_ro_access_key, row.storage_ro_secret_key]]) {
    expect(stored).toMatch(new RegExp(`^v1:${keyring.currentKeyId}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`));
    expect(await listAs(accessKey, stored, row.table_bucket)).toBe(403);
    expect(await listAs(accessKey, keyring.open(stored), row.table_bucket)).toBe(200);
  }
});

test('no row of any table holds a storage secret key, a catalog client secret, an API key, a send key or a device token in the clear', async () => {
  const { admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  // With an Idempotency-Key, so the answer is kept in idempotency_keys too.
  const w = (await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).set('Idempotency-Key', `at-rest-${project.project_id}`)
    .send({ project_id: project.project_id, name: 'at_rest' }).expect(201)).body;
  const connection = await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(admin.api_key)).expect(200);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'ev', name: 't', schema: sinkTestSchema }).expect(201);
  const sink = (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: 'at_rest', table: 'ev.t', warehouse: w.warehouse_id }).expect(201)).body;
  const device = (await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({}).expect(201)).body;
  const pool = db();
  try {
    const { rows: [keys] } = await pool.query(`SELECT storage_secret_key, storage_ro_secret_key FROM warehouses WHERE id = $1`, [w.warehouse_id]);
    const keyring = stackKeyring(stack());
    const secrets = {
      storage_rw: keyring.open(keys.storage_secret_key),
      storage_ro: keyring.open(keys.storage_ro_secret_key),
      catalog_client_secret: connection.body.catalog_credential.client_secret as string,
      api_key_secret: admin.api_key.split('_').at(-1)!,
      send_key: sink.send_key as string,
      device_token: device.device_token as string,
    };
    for (const s of Object.values(secrets)) expect(s.length).toBeGreaterThanOrEqual(20);
    const { rows: tables } = await pool.query<{ name: string }>(`SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['warehouses', 'signing_keys', 'audit_events', 'idempotency_keys', 'catalog_credentials', 'sinks']));
    expect((await pool.query(`SELECT 1 FROM idempotency_keys WHERE response_body->>'warehouse_id' = $1`, [w.warehouse_id])).rowCount).toBe(1);
    const found: string[] = [];
    for (const { name } of tables) {
      for (const [what, secret] of Object.entries(secrets)) {
        // The whole row as text: every column, JSON included.
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${name} t WHERE strpos(t::text, $1) > 0`, [secret]);
        if (rows[0].n) found.push(`${what} in ${name}`);
      }
    }
    expect(found).toEqual([]);
  } finally {
    await pool.end();
  }
});

test('every signing key\'s private JWK is sealed: no `d` can be read, and opened with the data key it signs what the JWKS verifies', async () => {
  const pool = db();
  let rows: Array<{ kid: string; private_jwk: string }>;
  try {
    ({ rows } = await pool.query(`SELECT kid, private_jwk FROM signing_keys ORDER BY created_at`));
  } finally {
    await pool.end();
  }
  expect(rows.length).toBeGreaterThanOrEqual(1);
  const keyring = stackKeyring(stack());
  const jwks = createLocalJWKSet((await gateway().get('/jwks.json').expect(200)).body);
  for (const { kid, private_jwk: stored } of rows) {
    expect(isSealed(stored)).toBe(true);
    expect(() => JSON.parse(stored)).toThrow();
    expect(stored).not.toMatch(/"d"|"kty"/);
    const jwk = JSON.parse(keyring.open(stored));
    expect(jwk).toMatchObject({ kid, kty: 'RSA', alg: 'RS256', d: expect.any(String) });
  }
  // The newest opened key signs a token the published JWKS verifies.
  const newest = rows[rows.length - 1];
  const key = await importJWK(JSON.parse(keyring.open(newest.private_jwk)), 'RS256');
  const token = await new SignJWT({ probe: true }).setProtectedHeader({ alg: 'RS256', kid: newest.kid }).sign(key);
  expect((await jwtVerify(token, jwks)).payload.probe).toBe(true);
});
