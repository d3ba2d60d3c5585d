// The data migration that seals secrets an older version stored in plain
// text, against the real Postgres: a scratch database brought to the state
// the previous release left (private JWKs as JSONB, storage secret keys as
// text), then migrated.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { applyMigrations, dropDatabase, ensureDatabase } from './migrate';
import { Keyring, isSealed, sealedKeyId } from './sealed';
import { migrateDatabase, sealStoredSecrets } from './stored-secrets';

const server = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const databaseUrl = `${server}/floe_test_sealing_${randomBytes(4).toString('hex')}`;
const TIMEOUT = 30_000;
const SEALING_MIGRATION = '20261124012943_sealed_secrets';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const ring = new Keyring([k1]);

const plain = {
  rw: 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd',
  ro: 'ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210ZyXw',
  jwk: { kty: 'RSA', kid: 'old-kid', n: 'n-value', e: 'AQAB', d: 'private-exponent', p: 'p', q: 'q', dp: 'dp', dq: 'dq', qi: 'qi' },
};

let pool: pg.Pool;
const rows = async () => ({
  warehouses: (await pool.query(`SELECT id, storage_secret_key AS rw, storage_ro_secret_key AS ro FROM warehouses ORDER BY id`)).rows,
  keys: (await pool.query(`SELECT kid, private_jwk::text AS jwk FROM signing_keys ORDER BY kid`)).rows,
});

/** Rows as the previous release wrote them: plaintext secrets, one warehouse still `creating` (no keys yet). */
async function writeOldRows(): Promise<void> {
  await pool.query(`DELETE FROM warehouses; DELETE FROM signing_keys`);
  for (const [id, rw, ro] of [['w1', plain.rw, plain.ro], ['w2', `${plain.rw}2`, `${plain.ro}2`], ['w3', '', '']]) {
    await pool.query(
      `INSERT INTO warehouses (id, name, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key,
         storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name)
       VALUES ($1, $1, $1 || '-t', $1 || '-b', $4, 't-' || $1, 'AK' || $1, $2, 't-' || $1 || '-ro', 'AKRO' || $1, $3, 'w-' || $1)`,
      [id, rw, ro, rw ? 'ready' : 'creating'],
    );
  }
  await pool.query(`INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk) VALUES ('old-kid', 'RS256', '{}', $1)`, [JSON.stringify(plain.jwk)]);
}

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  await applyMigrations(databaseUrl);
  pool = new pg.Pool({ connectionString: databaseUrl, max: 6 });
  pool.on('error', () => undefined);
  // Back to the previous release's schema: the JWK column was JSONB and the sealing migration not yet applied.
  await pool.query(`ALTER TABLE signing_keys ALTER COLUMN private_jwk TYPE jsonb USING private_jwk::jsonb`);
  await pool.query(`DELETE FROM _prisma_migrations WHERE migration_name = $1`, [SEALING_MIGRATION]);
}, TIMEOUT);

afterAll(async () => {
  await pool?.end();
  await dropDatabase(databaseUrl);
}, TIMEOUT);

test('the migration seals every plaintext secret an older version left, and leaves keyless rows alone', async () => {
  await writeOldRows();
  expect((await pool.query(`SELECT private_jwk->>'d' AS d FROM signing_keys`)).rows[0].d).toBe('private-exponent');

  const result = await migrateDatabase(databaseUrl, ring);
  expect(result.applied).toEqual([SEALING_MIGRATION]);
  expect(result.sealed).toEqual({ sealed: 5, resealed: 0 });

  const after = await rows();
  expect(after.warehouses.map((w) => [w.id, isSealed(w.rw), isSealed(w.ro)])).toEqual([['w1', true, true], ['w2', true, true], ['w3', false, false]]);
  expect(after.warehouses.map((w) => [w.rw && ring.open(w.rw), w.ro && ring.open(w.ro)])).toEqual([[plain.rw, plain.ro], [`${plain.rw}2`, `${plain.ro}2`], ['', '']]);
  expect(after.keys).toHaveLength(1);
  expect(isSealed(after.keys[0].jwk)).toBe(true);
  expect(after.keys[0].jwk).not.toContain('private-exponent');
  expect(JSON.parse(ring.open(after.keys[0].jwk))).toEqual(plain.jwk);

  // Again: nothing to do, nothing changed.
  expect(await migrateDatabase(databaseUrl, ring)).toEqual({ applied: [], sealed: { sealed: 0, resealed: 0 } });
  expect(await rows()).toEqual(after);
}, TIMEOUT);

test('several runners at once (replicas starting together) seal each value exactly once', async () => {
  await writeOldRows();
  await pool.query(`UPDATE signing_keys SET private_jwk = $1`, [JSON.stringify(plain.jwk)]);
  const results = await Promise.all([1, 2, 3, 4].map(() => sealStoredSecrets(pool, ring)));
  expect(results.reduce((n, r) => n + r.sealed, 0)).toBe(5);
  const after = await rows();
  expect(ring.open(after.warehouses[0].rw)).toBe(plain.rw);
  expect(ring.open(after.warehouses[1].ro)).toBe(`${plain.ro}2`);
  expect(JSON.parse(ring.open(after.keys[0].jwk)).d).toBe('private-exponent');
}, TIMEOUT);

test('reseal moves every value to the current key; afterwards the old key can go', async () => {
  const before = await rows();
  const rotated = new Keyring([k2, k1]);
  // The plain migration leaves values sealed under an older listed key where they are.
  expect(await sealStoredSecrets(pool, rotated)).toEqual({ sealed: 0, resealed: 0 });
  expect(await sealStoredSecrets(pool, rotated, { reseal: true })).toEqual({ sealed: 0, resealed: 5 });
  const after = await rows();
  const onlyK2 = new Keyring([k2]);
  for (const [i, w] of after.warehouses.entries()) {
    if (!w.rw) continue;
    expect([sealedKeyId(w.rw), sealedKeyId(w.ro)]).toEqual(['k2', 'k2']);
    expect([onlyK2.open(w.rw), onlyK2.open(w.ro)]).toEqual([ring.open(before.warehouses[i].rw), ring.open(before.warehouses[i].ro)]);
  }
  expect(JSON.parse(onlyK2.open(after.keys[0].jwk)).d).toBe('private-exponent');
  expect(await sealStoredSecrets(pool, onlyK2, { reseal: true })).toEqual({ sealed: 0, resealed: 0 });
}, TIMEOUT);

test('values sealed under a key the keyring does not list stop the migration, naming the key id', async () => {
  const stranger = new Keyring([{ id: 'k9', key: randomBytes(32) }]);
  await expect(sealStoredSecrets(pool, stranger)).rejects.toThrow(/sealed under data key k2, which FLOE_DATA_KEYS does not list/);
}, TIMEOUT);
