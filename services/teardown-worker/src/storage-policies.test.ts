import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { GetRolePolicyCommand, PutRolePolicyCommand, PutUserPolicyCommand } from '@aws-sdk/client-iam';
import { beginDeletion } from '@floe/catalogs';
import { createLogger } from '@floe/http';
import { RgwStorage, STORAGE_POLICY_VERSION, type StoreCredentials } from '@floe/storage';
import { adminStorage, storeEndpoint } from '../../../tests/support/store';
import { throwawayDatabase } from '../../../tests/support/throwaway-db';
import { applyCurrentStoragePolicies } from './storage-policies';

// The storage-policy sweep against the real Postgres and Ceph RGW. Catalogs
// made before the ACL hardening (buckets honouring public ACLs, identities,
// uploaders and the role with Allow-only policies) let any write credential
// make an object public; the sweep puts the current policies on them: an ACL
// already set has no effect any more, and a new one is refused. A deleted
// catalog within its grace gets the same, but its role stays without
// permissions; a store that refuses leaves the catalog behind for the next
// pass.

const db = throwawayDatabase('policies');
const store = adminStorage();
const refusing = new RgwStorage({ ...storeEndpoint(), adminAccessKey: process.env.FLOE_S3_ADMIN_ACCESS_KEY!, adminSecretKey: 'not-the-secret' });
const logger = createLogger('test', 'error');
const made: Array<{ table: string; blob: string; uids: string[]; role: string }> = [];

afterAll(async () => {
  for (const m of made) {
    for (const b of [m.table, m.blob]) await store.removeBucket(b).catch(() => undefined);
    for (const u of m.uids) await store.revokeUploader(u).catch(() => undefined);
    await store.deleteRole(m.role).catch(() => undefined);
  }
}, 60_000);

/** The policies every identity carried before: Allow-only, so ACLs were the store's to judge. */
const legacy = (Action: string[], Resource: string[]) => JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action, Resource }] });
const status = async (p: Promise<unknown>): Promise<number> => p.then(() => 200, (e) => e.$metadata?.httpStatusCode ?? -1);
const anonymous = async (bucket: string, key: string) => (await fetch(`${storeEndpoint().endpoint}/${bucket}/${key}`)).status;
const putPublic = (s3: S3Client, Bucket: string, Key: string) => s3.send(new PutObjectCommand({ Bucket, Key, Body: 'x', ACL: 'public-read' }));

/** A catalog as an older version made it, with an object its identity made public, and an active uploader. */
async function olderCatalog(state: 'ready' | 'deleted') {
  const id = randomUUID();
  const table = `sp-${id.slice(0, 13)}`;
  const blob = `${table}--blobs`;
  const uid = `t-${id}`;
  const uploader = `u-${id}-0a1b2c3d`;
  const role = `w-${id}`;
  made.push({ table, blob, uids: [uid, `${uid}-ro`, uploader], role });
  for (const b of [table, blob]) await store.s3.send(new CreateBucketCommand({ Bucket: b }));
  const rw = await store.ensureIdentity({ uid, displayName: 'policy test', buckets: [table, blob], access: 'write', assumableRole: role });
  await store.ensureIdentity({ uid: `${uid}-ro`, displayName: 'policy test ro', buckets: [table, blob], access: 'read', assumableRole: role });
  const { arn } = await store.ensureRole({ roleName: role, trustedUids: [uid, `${uid}-ro`], buckets: [table, blob] });
  const up = await store.createUploader({ uid: uploader, displayName: 'cam', bucket: blob, prefix: 'cams/', list: false });
  const session = await store.assumeSession({ roleArn: arn, as: rw, bucket: table, prefix: 'ns/t/', access: 'write' });
  const objects = [`arn:aws:s3:::${table}/*`, `arn:aws:s3:::${blob}/*`];
  await store.iam.send(new PutUserPolicyCommand({ UserName: uid, PolicyName: 'floe', PolicyDocument: legacy(['s3:*'], [`arn:aws:s3:::${table}`, `arn:aws:s3:::${blob}`, ...objects]) }));
  await store.iam.send(new PutUserPolicyCommand({ UserName: uploader, PolicyName: 'floe-uploader', PolicyDocument: legacy(['s3:PutObject'], [`arn:aws:s3:::${blob}/cams/*`]) }));
  await store.iam.send(new PutRolePolicyCommand({ RoleName: role, PolicyName: 'floe', PolicyDocument: legacy(['s3:*'], objects) }));
  await putPublic(store.s3As(rw), table, 'ns/t/data/old.parquet');
  expect(await anonymous(table, 'ns/t/data/old.parquet')).toBe(200);
  await db.pool().query(
    `INSERT INTO warehouses (id, name, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key,
       storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name)
     VALUES ($1, 'lake', $2, $3, 'ready', $4, '', '', $5, '', '', $6)`, [id, table, blob, uid, `${uid}-ro`, role]);
  await db.pool().query(`INSERT INTO uploaders (id, warehouse_id, name, prefix, iam_user, access_key_id) VALUES ($1, $2, 'cam', 'cams/', $3, $4)`,
    [`upl_${id.slice(0, 8)}`, id, uploader, up.accessKeyId]);
  if (state === 'deleted') {
    await beginDeletion(db.prisma(), id, { graceSeconds: 3600, reason: 'request', actor: { principalId: null, kind: null, requestId: null, ip: null } });
    await store.revokeRoleSessions(role);
  }
  return { id, table, blob, role, rw: rw as StoreCredentials, up: up as StoreCredentials, session };
}

const version = async (id: string) => (await db.pool().query(`SELECT storage_policy_version AS v FROM warehouses WHERE id = $1`, [id])).rows[0].v;

test('older catalogs get the current policies: an ACL set earlier reaches nobody, a new one is refused; a deleted catalog\'s role stays cut', async () => {
  const live = await olderCatalog('ready');
  const deleted = await olderCatalog('deleted');

  // A refusing store leaves both behind, and says so.
  expect(await applyCurrentStoragePolicies({ prisma: db.prisma(), storage: refusing, logger })).toEqual({ updated: 0, failed: 2 });
  expect([await version(live.id), await version(deleted.id)]).toEqual([0, 0]);

  expect(await applyCurrentStoragePolicies({ prisma: db.prisma(), storage: store, logger })).toEqual({ updated: 2, failed: 0 });
  expect([await version(live.id), await version(deleted.id)]).toEqual([STORAGE_POLICY_VERSION, STORAGE_POLICY_VERSION]);
  for (const c of [live, deleted]) {
    // The object made public before is not any more; both buckets ignore public ACLs.
    expect(await anonymous(c.table, 'ns/t/data/old.parquet')).toBe(403);
    expect([await store.publicAclsIgnored(c.table), await store.publicAclsIgnored(c.blob)]).toEqual([true, true]);
    // The identity and the uploader may no longer send an ACL; the identity still writes.
    expect(await status(putPublic(store.s3As(c.rw), c.table, 'ns/t/data/new.parquet'))).toBe(403);
    expect(await status(putPublic(store.s3As(c.up), c.blob, 'cams/new.jpg'))).toBe(403);
    expect(await status(store.s3As(c.up).send(new PutObjectCommand({ Bucket: c.blob, Key: 'cams/plain.jpg', Body: 'x' })))).toBe(200);
  }
  // The live catalog's sessions keep working (no deletion to cut them); a session may not send an ACL either.
  expect(await status(store.s3As(live.session).send(new PutObjectCommand({ Bucket: live.table, Key: 'ns/t/data/s.parquet', Body: 'x' })))).toBe(200);
  expect(await status(putPublic(store.s3As(live.session), live.table, 'ns/t/data/s2.parquet'))).toBe(403);
  // The deleted catalog's role keeps no permissions: its sessions stay refused.
  expect(await status(store.iam.send(new GetRolePolicyCommand({ RoleName: deleted.role, PolicyName: 'floe' })))).toBe(404);
  expect(await status(store.s3As(deleted.session).send(new PutObjectCommand({ Bucket: deleted.table, Key: 'ns/t/data/s.parquet', Body: 'x' })))).toBe(403);

  // Nothing is behind any more.
  expect(await applyCurrentStoragePolicies({ prisma: db.prisma(), storage: store, logger })).toEqual({ updated: 0, failed: 0 });
}, 90_000);
