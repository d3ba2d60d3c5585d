import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import type { StoreCredentials } from '@floe/storage';
import { stackKeyring } from '../support/keyring';
import { awsCli } from '../support/store';
import { bearer, gateway, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { sql, stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Issue 27, "Object ACLs make data public": nothing Floe hands out may make an
// object readable by anyone but through POST …/public. With the credentials
// the API hands out — a vended table session (table bucket) and an uploader
// key (blob bucket) — and Debian's aws CLI against the real store, every way
// of sending an ACL: a PUT with a canned ACL or a grant (to all users, or to
// another tenant's identity), PutObjectAcl, a copy of an object onto itself,
// and a multipart upload. Each is refused where the store lets a policy see
// it (PUT, PutObjectAcl); where it cannot (a copy, CreateMultipartUpload on
// RGW Pacific) the store takes the request and the ACL reaches nobody: an
// anonymous GET and the other tenant's identity are refused every time.

const ALL_USERS = 'uri=http://acs.amazonaws.com/groups/global/AllUsers';

let dir: string;
let big: string;
let small: string;
beforeAll(() => {
  dir = mkdtempSync(joinPath(tmpdir(), 'floe-acls-'));
  small = joinPath(dir, 'small.bin');
  writeFileSync(small, 'bytes');
  big = joinPath(dir, 'big.bin');
  writeFileSync(big, Buffer.alloc(9 * 1024 * 1024, 1)); // over the CLI's 8 MB multipart threshold
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A GET with no credentials at all, at the store's public address. */
const anonymous = async (bucket: string, key: string) => (await fetch(`${stack().s3_url}/${bucket}/${encodeURI(key)}`)).status;

/** Another organisation's catalog and its read/write storage identity, opened as the services open it. */
async function otherTenant(): Promise<{ uid: string; keys: StoreCredentials }> {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const [row] = await sql(`SELECT storage_uid, storage_access_key, storage_secret_key FROM warehouses WHERE id = $1`, [w.warehouse_id]);
  return { uid: row.storage_uid, keys: { accessKeyId: row.storage_access_key, secretAccessKey: stackKeyring(stack()).open(row.storage_secret_key) } };
}

/** Every ACL vector under `prefix` of `bucket` as `who`; returns what each answered. */
async function tryEveryAcl(who: StoreCredentials, bucket: string, prefix: string, other: { uid: string; keys: StoreCredentials }) {
  const aws = (args: string[]) => awsCli(who, args, stack().s3_url);
  const otherReads = async (key: string) => (await awsCli(other.keys, ['s3api', 'get-object', '--bucket', bucket, '--key', key, joinPath(dir, 'out')], stack().s3_url)).status;
  const key = (name: string) => `${prefix}${name}`;
  const out: Record<string, unknown> = {};

  out.put_canned = (await aws(['s3api', 'put-object', '--bucket', bucket, '--key', key('canned'), '--body', small, '--acl', 'public-read'])).status;
  out.put_canned_private = (await aws(['s3api', 'put-object', '--bucket', bucket, '--key', key('private'), '--body', small, '--acl', 'private'])).status;
  out.put_grant_all = (await aws(['s3api', 'put-object', '--bucket', bucket, '--key', key('grant-all'), '--body', small, '--grant-read', ALL_USERS])).status;
  out.put_grant_other = (await aws(['s3api', 'put-object', '--bucket', bucket, '--key', key('grant-other'), '--body', small, '--grant-full-control', `id=${other.uid}`])).status;
  out.put_plain = (await aws(['s3api', 'put-object', '--bucket', bucket, '--key', key('plain'), '--body', small])).status;
  out.put_object_acl = (await aws(['s3api', 'put-object-acl', '--bucket', bucket, '--key', key('plain'), '--acl', 'public-read'])).status;
  out.put_object_acl_grant = (await aws(['s3api', 'put-object-acl', '--bucket', bucket, '--key', key('plain'), '--grant-read', ALL_USERS])).status;
  out.copy_onto_itself = (await aws(['s3api', 'copy-object', '--bucket', bucket, '--key', key('plain'), '--copy-source', `${bucket}/${key('plain')}`,
    '--metadata-directive', 'REPLACE', '--acl', 'public-read'])).status;
  out.copy_grant_other = (await aws(['s3api', 'copy-object', '--bucket', bucket, '--key', key('copy-other'), '--copy-source', `${bucket}/${key('plain')}`,
    '--grant-read', `id=${other.uid}`])).status;
  const multipart = await aws(['s3', 'cp', big, `s3://${bucket}/${key('multipart')}`, '--acl', 'public-read']);
  out.multipart = [multipart.code, /CreateMultipartUpload|uploads/.test(multipart.out)];
  const multipartGrant = await aws(['s3', 'cp', big, `s3://${bucket}/${key('multipart-grant')}`, '--grants', `read=${ALL_USERS}`, `full=id=${other.uid}`]);
  out.multipart_grant = multipartGrant.code;

  out.anonymous = Object.fromEntries(await Promise.all(
    ['canned', 'private', 'grant-all', 'grant-other', 'plain', 'copy-other', 'multipart', 'multipart-grant'].map(async (k) => [k, await anonymous(bucket, key(k))])));
  out.other_tenant = Object.fromEntries(await Promise.all(['plain', 'copy-other', 'multipart-grant'].map(async (k) => [k, await otherReads(key(k))])));
  return out;
}

/** What every vector must answer: refused, or taken with its ACL reaching nobody; `copy` is what the store answers a copy. */
const refusedOrReachingNobody = (copy: number) => ({
  put_canned: 403, put_canned_private: 403, put_grant_all: 403, put_grant_other: 403, put_plain: 200,
  put_object_acl: 403, put_object_acl_grant: 403,
  copy_onto_itself: copy, copy_grant_other: copy, multipart: [0, true], multipart_grant: 0,
  anonymous: { canned: 403, private: 403, 'grant-all': 403, 'grant-other': 403, plain: 403, 'copy-other': 403, multipart: 403, 'multipart-grant': 403 },
  other_tenant: { plain: 403, 'copy-other': 403, 'multipart-grant': 403 },
});

test('a vended table session (table bucket): every ACL refused or reaching nobody; plain writes and multipart still work', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'acl', name: 't', schema: sinkTestSchema }).expect(201);
  const vended = await gateway().post('/v1/credentials').set(bearer(admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'acl', name: 't' }).expect(200);
  const c = vended.body.credentials;
  const session = { accessKeyId: c.access_key_id, secretAccessKey: c.secret_access_key, sessionToken: c.session_token };

  const seen = await tryEveryAcl(session, w.bucket, `${vended.body.prefix}data/`, await otherTenant());
  // The store takes the copies (RGW Pacific shows a policy no ACL on them); the ACL reaches nobody.
  expect(seen).toEqual(refusedOrReachingNobody(200));
}, 120_000);

test('an uploader key (blob bucket): every ACL refused or reaching nobody; uploads still work', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const made = await gateway().post(`/v1/warehouses/${w.warehouse_id}/uploaders`).set(bearer(admin.api_key)).send({ name: 'cam', prefix: 'cams/' }).expect(201);
  const uploader = { accessKeyId: made.body.access_key_id, secretAccessKey: made.body.secret_access_key };

  const seen = await tryEveryAcl(uploader, w.blob_bucket, 'cams/', await otherTenant());
  // An uploader cannot read, so it cannot copy at all.
  expect(seen).toEqual(refusedOrReachingNobody(403));
}, 120_000);
