import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { generateApiKey } from '@floe/auth';
import type { StackState } from '../../scripts/lib/stack';
import { stackKeyring } from './keyring';
import { adminStorage } from './store';

// A warehouse provisioned the way POST /v1/warehouses will (control-plane
// issue): both buckets, the read/write and read-only storage identities, the
// role for vended sessions, and the catalog credentials t-<uuid> / t-<uuid>-ro
// whose secrets are kept only as hashes, and the storage secret keys sealed
// with the stack's data key. The catalog's tests create warehouses outside
// any project through this.

export interface TestWarehouse {
  id: string;
  name: string;
  tableBucket: string;
  blobBucket: string;
  rw: { clientId: string; clientSecret: string };
  ro: { clientId: string; clientSecret: string };
  /** The read/write storage identity's keys (what the catalog acts as). */
  storage: { accessKeyId: string; secretAccessKey: string };
}

export async function createTestWarehouse(state: Pick<StackState, 'database_url' | 'data_keys'>, name = `wh_${randomBytes(3).toString('hex')}`): Promise<TestWarehouse> {
  const keyring = stackKeyring(state);
  const store = adminStorage();
  const id = randomUUID();
  const tableBucket = `test--${name.replace(/_/g, '-')}-${id.slice(0, 8)}`;
  const blobBucket = `${tableBucket}--blobs`;
  const uid = `t-${id}`;
  const roleName = `w-${id}`;
  await store.ensureBucket(tableBucket);
  await store.ensureBucket(blobBucket);
  const rwKeys = await store.ensureIdentity({ uid, displayName: `warehouse ${name}`, buckets: [tableBucket, blobBucket], access: 'write', assumableRole: roleName });
  const roKeys = await store.ensureIdentity({ uid: `${uid}-ro`, displayName: `warehouse ${name} (read-only)`, buckets: [tableBucket, blobBucket], access: 'read', assumableRole: roleName });
  const { arn } = await store.ensureRole({ roleName, trustedUids: [uid, `${uid}-ro`], buckets: [tableBucket, blobBucket] });
  const rwSecret = generateApiKey();
  const roSecret = generateApiKey();
  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  try {
    await pool.query(
      `INSERT INTO warehouses (id, name, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key,
         storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name, role_arn)
       VALUES ($1, $2, $3, $4, 'ready', $5, $6, $7, $8, $9, $10, $11, $12)`,
      [id, name, tableBucket, blobBucket, uid, rwKeys.accessKeyId, keyring.seal(rwKeys.secretAccessKey), `${uid}-ro`, roKeys.accessKeyId, keyring.seal(roKeys.secretAccessKey), roleName, arn],
    );
    await pool.query(
      `INSERT INTO catalog_credentials (client_id, warehouse_id, access, secret_hash) VALUES ($1, $2, 'write', $3), ($4, $2, 'read', $5)`,
      [uid, id, rwSecret.secretHash, `${uid}-ro`, roSecret.secretHash],
    );
  } finally {
    await pool.end();
  }
  return { id, name, tableBucket, blobBucket, rw: { clientId: uid, clientSecret: rwSecret.secret }, ro: { clientId: `${uid}-ro`, clientSecret: roSecret.secret },
    storage: { accessKeyId: rwKeys.accessKeyId, secretAccessKey: rwKeys.secretAccessKey } };
}

export async function removeTestWarehouse(w: TestWarehouse): Promise<void> {
  const store = adminStorage();
  await store.removeBucket(w.tableBucket).catch(() => undefined);
  await store.removeBucket(w.blobBucket).catch(() => undefined);
  await store.deleteIdentity(`t-${w.id}`).catch(() => undefined);
  await store.deleteIdentity(`t-${w.id}-ro`).catch(() => undefined);
  await store.deleteRole(`w-${w.id}`).catch(() => undefined);
}
