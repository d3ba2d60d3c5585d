import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { adminStorage, awsCli, boto3 } from '../support/store';
import { until } from '../support/poll';
import { linkTokenIn, newestMailTo } from '../support/mail';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { signInGoesStale, sql } from './helpers';

// Spec: Uploaders (write-only blob credentials), through the gateway, with
// the keys they hand out used by real clients (Debian's aws CLI and boto3)
// against the store's public address the answer names.

interface Uploader {
  uploader_id: string; name: string; prefix: string; list: boolean; iam_user: string; access_key_id: string; secret_access_key: string;
  endpoint: string; bucket: string; region: string; status: string; expires_at: string | null; iam_writes: Array<{ what: string; result: string }>;
  recipe: { aws_cli: string; python_boto3: string; curl_presign_note: string };
}

/** How the store refuses a deleted key (RGW Pacific answers AccessDenied for a key it no longer knows). */
const KEY_REFUSED = ['InvalidAccessKeyId', 'AccessDenied'];

const keyOf = (u: Uploader) => ({ accessKeyId: u.access_key_id, secretAccessKey: u.secret_access_key });
const aws = (u: Uploader, args: string[]) => awsCli(keyOf(u), args, u.endpoint);
const py = (u: Uploader, body: string) => boto3(keyOf(u), body, u.endpoint);
const path = (w: { warehouse_id: string }) => `/v1/warehouses/${w.warehouse_id}/uploaders`;

async function create(apiKey: string, w: { warehouse_id: string }, body: Record<string, unknown>): Promise<Uploader> {
  const res = await gateway().post(path(w)).set(bearer(apiKey)).send(body);
  if (res.status !== 201) throw new Error(`creating an uploader failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The RGW users of a warehouse's uploaders, as the store's admin API lists them. */
async function storeUsersOf(warehouseId: string): Promise<string[]> {
  const users = (await adminStorage().admin.call<string[]>('GET', 'metadata/user', {}, 'list users')) ?? [];
  return users.filter((u) => u.startsWith(`u-${warehouseId}-`));
}

async function setting() {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  return { org, admin, member, w };
}

let dir: string;
beforeAll(() => { dir = mkdtempSync(joinPath(tmpdir(), 'floe-uploaders-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('refusals', () => {
  test('names, prefixes, expiry, levels and lookups: each refusal with its status and code', async () => {
    const { admin, member, w } = await setting();
    const post = (body: unknown, key = admin.api_key) => gateway().post(path(w)).set(bearer(key)).send(body as object);
    for (const name of ['', '-cam', 'a b', 'cam/1', 'x'.repeat(65), 'câmera']) {
      expect([name, expectError(await post({ name }), 400, 'bad_name').field]).toEqual([name, 'name']);
    }
    expectError(await post({}), 400, 'missing_field');
    expectError(await post({ name: 7 }), 400, 'invalid_value');
    for (const prefix of ['', '/abs/', 'a/../b/', '../x', 'a//b', '_sink/', '_sink/x/', '_s', 'cams/*', 'cams/${aws:username}/', 'sp ace/', 'x'.repeat(257)]) {
      expect([prefix, expectError(await post({ name: 'cam', prefix }), 400, 'invalid_value').field]).toEqual([prefix, 'prefix']);
    }
    expect(expectError(await post({ name: 'cam', expires_at: new Date(Date.now() - 60_000).toISOString() }), 400, 'invalid_value').field).toBe('expires_at');
    expect(expectError(await post({ name: 'cam', expires_at: 'tomorrow' }), 400, 'invalid_value').field).toBe('expires_at');
    expect(expectError(await post({ name: 'cam', list: 'yes' }), 400, 'invalid_value').field).toBe('list');
    // Read level: 403 on the writes, the listing answers.
    expect(expectError(await post({ name: 'cam' }, member.api_key), 403, 'forbidden')).toMatchObject({ needed: 'write', level: 'read' });
    expectError(await gateway().get(`/v1/warehouses/no-such-catalog/uploaders`).set(bearer(admin.api_key)), 404, 'warehouse_not_found');
    expectError(await gateway().post('/v1/warehouses/no-such-catalog/uploaders').set(bearer(admin.api_key)).send({ name: 'cam' }), 404, 'warehouse_not_found');
    const cam = await post({ name: 'cam', prefix: 'cams/' });
    expect(cam.status).toBe(201);
    expectError(await post({ name: 'cam', prefix: 'other/' }), 409, 'already_exists');
    expectError(await gateway().delete(`${path(w)}/cam`).set(bearer(member.api_key)), 403, 'forbidden');
    expectError(await gateway().delete(`${path(w)}/upl_nope`).set(bearer(admin.api_key)), 404, 'uploader_not_found');
    const listed = await gateway().get(path(w)).set(bearer(member.api_key));
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ warehouse_id: w.warehouse_id, warehouse_name: w.bucket, bucket: w.blob_bucket, count: 1 });
    expect(listed.body.uploaders[0]).toMatchObject({ name: 'cam', prefix: 'cams/', status: 'active' });
    expect(listed.body.uploaders[0]).not.toHaveProperty('secret_access_key');
    expect(JSON.stringify(listed.body)).not.toContain(cam.body.secret_access_key);
    expect(listed.body.uploaders[0].recipe.aws_cli).toContain('<secret shown once at creation>');

    // Another organisation's admin: none of it exists.
    const stranger = (await newOrgWithAdmin()).admin;
    expectError(await gateway().get(path(w)).set(bearer(stranger.api_key)), 404, 'warehouse_not_found');
    expectError(await post({ name: 'intruder' }, stranger.api_key), 404, 'warehouse_not_found');
    expectError(await gateway().delete(`${path(w)}/cam`).set(bearer(stranger.api_key)), 404, 'warehouse_not_found');
  });

  test('limit_exceeded at 50 active uploaders in a catalog; a revoked one frees its place', async () => {
    const { admin, w } = await setting();
    for (let i = 0; i < 49; i += 1) {
      await sql(`INSERT INTO uploaders (id, warehouse_id, name, prefix, iam_user, access_key_id) VALUES ($1, $2, $3, $4, $5, 'AKFAKE')`,
        [`upl_fake${i}_${uniq()}`, w.warehouse_id, `fake${i}`, `fake${i}/`, `u-${w.warehouse_id}-fake${i}`]);
    }
    const fiftieth = await create(admin.api_key, w, { name: 'fifty' });
    const refused = expectError(await gateway().post(path(w)).set(bearer(admin.api_key)).send({ name: 'one-more' }), 409, 'limit_exceeded');
    expect(refused).toMatchObject({ limit_value: 50, current: 50 });
    expect(await storeUsersOf(w.warehouse_id)).toEqual([fiftieth.iam_user]);
    expect((await gateway().delete(`${path(w)}/fake0`).set(bearer(admin.api_key))).body).toMatchObject({ revoked: true, status: 'revoked' });
    expect((await gateway().post(path(w)).set(bearer(admin.api_key)).send({ name: 'one-more' })).status).toBe(201);
  });

  test('a browser session signed in over 10 minutes ago is asked to sign in again; an API key never is', async () => {
    const email = `upl-${uniq()}${uniq()}@example.com`;
    const handle = `upl-${uniq()}${uniq()}`;
    expect((await gateway().post('/v1/auth/signup').send({ email, full_name: 'Ada', organization_name: `Org ${handle}`, handle })).status).toBe(202);
    const set = await gateway().post('/v1/auth/password/set').send({ token: linkTokenIn(await newestMailTo(email), 'welcome'), password: 'a long enough passphrase 42' });
    expect(set.status).toBe(200);
    const session = set.body;
    const lake = { warehouse_id: session.warehouse.warehouse_id };
    expect((await gateway().post(path(lake)).set(bearer(session.access_token)).send({ name: 'fresh' })).status).toBe(201);
    await signInGoesStale(session.session_id);
    expectError(await gateway().post(path(lake)).set(bearer(session.access_token)).send({ name: 'late' }), 401, 'reauth_required');
    expectError(await gateway().delete(`${path(lake)}/fresh`).set(bearer(session.access_token)), 401, 'reauth_required');
    expect((await gateway().get(path(lake)).set(bearer(session.access_token))).status).toBe(200);
  });
});

describe('what the key can do, with real clients', () => {
  test('aws CLI: PUT under the prefix (single and multipart); nothing else; revoked, the key is refused', async () => {
    const { admin, w } = await setting();
    const u = await create(admin.api_key, w, { name: 'cam-1', prefix: 'cams/1/' });
    // The answer.
    expect(u).toMatchObject({
      name: 'cam-1', prefix: 'cams/1/', list: false, bucket: w.blob_bucket, status: 'active', expires_at: null, revoked_at: null,
      iam_user: expect.stringMatching(new RegExp(`^u-${w.warehouse_id}-[0-9a-f]{8}$`)), scope: `s3://${w.blob_bucket}/cams/1/*`, created_by: admin.principal_id,
    });
    expect(u.secret_access_key).toEqual(expect.any(String));
    expect(u.iam_writes.map((x) => [x.what, x.result])).toEqual([['create_user_with_key', 'created'], ['put_user_policy', 'put']]);
    expect(u.recipe.aws_cli).toContain(u.secret_access_key);
    expect(u.recipe.python_boto3).toContain(u.access_key_id);
    const statements = (u as unknown as { policy: { Statement: Array<{ Effect: string; Action: string[]; Resource: string[] }> } }).policy.Statement;
    expect(statements.filter((s) => s.Effect === 'Allow')).toEqual([
      expect.objectContaining({ Action: ['s3:PutObject', 's3:AbortMultipartUpload'], Resource: [`arn:aws:s3:::${w.blob_bucket}/cams/1/*`] }),
    ]);

    const small = joinPath(dir, 'frame.jpg');
    writeFileSync(small, 'jpeg bytes');
    const big = joinPath(dir, 'big.bin');
    writeFileSync(big, Buffer.alloc(9 * 1024 * 1024, 7)); // over the CLI's 8 MB multipart threshold
    const put = await aws(u, ['s3api', 'put-object', '--bucket', u.bucket, '--key', 'cams/1/frame.jpg', '--body', small]);
    expect([put.code, put.status]).toEqual([0, 200]);
    const cp = await aws(u, ['s3', 'cp', big, `s3://${u.bucket}/cams/1/big.bin`]);
    expect(cp.code).toBe(0);
    expect(cp.out).toMatch(/CreateMultipartUpload|uploads/);
    const stored = await adminStorage().s3.send(new ListObjectsV2Command({ Bucket: u.bucket, Prefix: 'cams/1/' }));
    expect((stored.Contents ?? []).map((o) => [o.Key, o.Size])).toEqual([['cams/1/big.bin', 9 * 1024 * 1024], ['cams/1/frame.jpg', 10]]);

    const refusedTo = async (args: string[]) => {
      const r = await aws(u, args);
      return [r.code === 0 ? 'ok' : 'refused', r.status, r.errorCode];
    };
    expect(await refusedTo(['s3api', 'put-object', '--bucket', u.bucket, '--key', 'cams/2/frame.jpg', '--body', small])).toEqual(['refused', 403, 'AccessDenied']);
    expect(await refusedTo(['s3api', 'put-object', '--bucket', u.bucket, '--key', 'cams/1', '--body', small])).toEqual(['refused', 403, 'AccessDenied']);
    expect(await refusedTo(['s3api', 'put-object', '--bucket', w.bucket, '--key', 'cams/1/frame.jpg', '--body', small])).toEqual(['refused', 403, 'AccessDenied']);
    expect(await refusedTo(['s3api', 'get-object', '--bucket', u.bucket, '--key', 'cams/1/frame.jpg', joinPath(dir, 'out')])).toEqual(['refused', 403, 'AccessDenied']);
    expect(await refusedTo(['s3api', 'delete-object', '--bucket', u.bucket, '--key', 'cams/1/frame.jpg'])).toEqual(['refused', 403, 'AccessDenied']);
    expect(await refusedTo(['s3api', 'list-objects-v2', '--bucket', u.bucket, '--prefix', 'cams/1/'])).toEqual(['refused', 403, 'AccessDenied']);
    // A storage credential, not an API credential.
    expectError(await gateway().get('/v1/warehouses').set(bearer(u.access_key_id)), 401, 'unauthorized');
    expectError(await gateway().get('/v1/warehouses').set(bearer(u.secret_access_key)), 401, 'unauthorized');

    const revoke = await gateway().delete(`${path(w)}/${u.uploader_id}`).set(bearer(admin.api_key));
    expect(revoke.status).toBe(200);
    expect(revoke.body).toMatchObject({ uploader_id: u.uploader_id, status: 'revoked', revoked: true, already_revoked: false, storage: { access_key: 'deleted', user: 'deleted' } });
    expect(revoke.body.revoked_at).toEqual(expect.any(String));
    expect(revoke.body.iam_writes.map((x: { what: string }) => x.what)).toEqual(['delete_access_key', 'delete_user_policy', 'delete_user']);
    expect(revoke.body).not.toHaveProperty('secret_access_key');
    const after = await aws(u, ['s3api', 'put-object', '--bucket', u.bucket, '--key', 'cams/1/late.jpg', '--body', small]);
    expect([after.code === 0, after.status, KEY_REFUSED.includes(after.errorCode!)]).toEqual([false, 403, true]);
    expect(await storeUsersOf(w.warehouse_id)).toEqual([]);
    const again = await gateway().delete(`${path(w)}/cam-1`).set(bearer(admin.api_key));
    expect(again.body).toMatchObject({ status: 'revoked', revoked: false, already_revoked: true, iam_writes: [] });
    // Gone from the listing, back with include_revoked; a new uploader may take the name.
    expect((await gateway().get(path(w)).set(bearer(admin.api_key))).body.count).toBe(0);
    const all = await gateway().get(path(w)).query({ include_revoked: 'true' }).set(bearer(admin.api_key));
    expect(all.body.uploaders.map((x: Uploader) => [x.name, x.status])).toEqual([['cam-1', 'revoked']]);
    expect((await gateway().post(path(w)).set(bearer(admin.api_key)).send({ name: 'cam-1', prefix: 'cams/1/' })).status).toBe(201);
    const audit = await gateway().get('/v1/audit').query({ action: 'uploader.*' }).set(bearer(admin.api_key));
    expect(audit.body.events.map((e: { action: string }) => e.action).sort()).toEqual(['uploader.create', 'uploader.create', 'uploader.revoke']);
  }, 120_000);

  test('boto3: without list no listing; with list, listing only of its own prefix; multipart upload_file', async () => {
    const { admin, w } = await setting();
    const noList = await create(admin.api_key, w, { name: 'drop' });
    expect(noList.prefix).toBe('drop/');
    const B = JSON.stringify(w.blob_bucket);
    expect(await py(noList, `print(json.dumps({"put": err(lambda: s3.put_object(Bucket=${B}, Key="drop/a.txt", Body=b"x")), "list": err(lambda: s3.list_objects_v2(Bucket=${B}, Prefix="drop/"))}))`))
      .toEqual({ put: 'ok', list: 'AccessDenied' });

    const lister = await create(admin.api_key, w, { name: 'lister', prefix: 'in/', list: true });
    const big = joinPath(dir, 'boto-big.bin');
    writeFileSync(big, Buffer.alloc(9 * 1024 * 1024, 1));
    const result = await py(lister, [
      `B = ${B}`,
      'from boto3.s3.transfer import TransferConfig',
      `s3.upload_file(${JSON.stringify(big)}, B, "in/big.bin", Config=TransferConfig(multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024))`,
      'print(json.dumps({',
      '  "put": err(lambda: s3.put_object(Bucket=B, Key="in/a.txt", Body=b"x")),',
      '  "put_elsewhere": err(lambda: s3.put_object(Bucket=B, Key="out/a.txt", Body=b"x")),',
      '  "list_own": sorted(o["Key"] for o in s3.list_objects_v2(Bucket=B, Prefix="in/").get("Contents", [])),',
      '  "list_all": err(lambda: s3.list_objects_v2(Bucket=B)),',
      '  "list_other": err(lambda: s3.list_objects_v2(Bucket=B, Prefix="drop/")),',
      '  "get": err(lambda: s3.get_object(Bucket=B, Key="in/a.txt")),',
      '  "delete": err(lambda: s3.delete_object(Bucket=B, Key="in/a.txt")),',
      '}))',
    ].join('\n'));
    expect(result).toEqual({
      put: 'ok', put_elsewhere: 'AccessDenied', list_own: ['in/a.txt', 'in/big.bin'], list_all: 'AccessDenied', list_other: 'AccessDenied', get: 'AccessDenied', delete: 'AccessDenied',
    });
    const head = await adminStorage().s3.send(new ListObjectsV2Command({ Bucket: w.blob_bucket, Prefix: 'in/big.bin' }));
    expect(head.Contents?.[0]?.Size).toBe(9 * 1024 * 1024);
    await gateway().delete(`${path(w)}/lister`).set(bearer(admin.api_key)).expect(200);
    expect(KEY_REFUSED).toContain(await py(lister, `print(json.dumps(err(lambda: s3.put_object(Bucket=${B}, Key="in/b.txt", Body=b"x"))))`));
  }, 120_000);

  test('expiry: at expires_at the teardown worker expires the uploader and its key is refused', async () => {
    const { org, admin, w } = await setting();
    const expiresAt = new Date(Date.now() + 4000);
    const u = await create(admin.api_key, w, { name: 'brief', expires_at: expiresAt.toISOString() });
    expect(u.expires_at).toBe(expiresAt.toISOString());
    const B = JSON.stringify(w.blob_bucket);
    expect(await py(u, `print(json.dumps(err(lambda: s3.put_object(Bucket=${B}, Key="brief/a.txt", Body=b"x"))))`)).toBe('ok');
    await until('the uploader to expire', async () => {
      const listed = await gateway().get(path(w)).query({ include_revoked: 'true' }).set(bearer(admin.api_key));
      return listed.body.uploaders[0].status === 'expired' ? true : null;
    }, 30);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt.getTime());
    expect(KEY_REFUSED).toContain(await py(u, `print(json.dumps(err(lambda: s3.put_object(Bucket=${B}, Key="brief/b.txt", Body=b"x"))))`));
    expect(await storeUsersOf(w.warehouse_id)).toEqual([]);
    expect((await gateway().get(path(w)).set(bearer(admin.api_key))).body.count).toBe(0);
    const del = await gateway().delete(`${path(w)}/brief`).set(bearer(admin.api_key));
    expect(del.body).toMatchObject({ status: 'expired', revoked: false, already_revoked: true });
    const audit = await gateway().get('/v1/audit').query({ org_id: org.org_id, action: 'uploader.expire' }).set(bearer(admin.api_key));
    expect(audit.body.events.map((e: { target_id: string }) => e.target_id)).toEqual([u.uploader_id]);
  }, 60_000);
});

describe('concurrency', () => {
  test('20 concurrent creates of one name: one uploader, one storage identity; 20 concurrent revokes: one revocation', async () => {
    const { admin, w } = await setting();
    const creates = await Promise.all(Array.from({ length: 20 }, () => gateway().post(path(w)).set(bearer(admin.api_key)).send({ name: 'race', prefix: 'race/' })));
    expect(creates.map((r) => r.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    for (const r of creates.filter((x) => x.status === 409)) expectError(r, 409, 'already_exists');
    const winner = creates.find((r) => r.status === 201)!.body as Uploader;
    expect(await storeUsersOf(w.warehouse_id)).toEqual([winner.iam_user]);
    expect((await sql(`SELECT count(*)::int AS n FROM uploaders WHERE warehouse_id = $1`, [w.warehouse_id]))[0].n).toBe(1);

    const revokes = await Promise.all(Array.from({ length: 20 }, () => gateway().delete(`${path(w)}/${winner.uploader_id}`).set(bearer(admin.api_key))));
    expect(revokes.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(revokes.filter((r) => r.body.revoked === true)).toHaveLength(1);
    expect(revokes.filter((r) => r.body.already_revoked === true)).toHaveLength(19);
    expect(await storeUsersOf(w.warehouse_id)).toEqual([]);
    const audit = await gateway().get('/v1/audit').query({ action: 'uploader.revoke' }).set(bearer(admin.api_key));
    expect(audit.body.events).toHaveLength(1);
  }, 120_000);

  test('20 concurrent creates of distinct names three short of the limit: exactly three uploaders and identities, 17 limit_exceeded', async () => {
    const { admin, w } = await setting();
    for (let i = 0; i < 47; i += 1) {
      await sql(`INSERT INTO uploaders (id, warehouse_id, name, prefix, iam_user, access_key_id) VALUES ($1, $2, $3, $4, $5, 'AKFAKE')`,
        [`upl_fake${i}_${uniq()}`, w.warehouse_id, `fake${i}`, `fake${i}/`, `u-${w.warehouse_id}-fake${i}`]);
    }
    const creates = await Promise.all(Array.from({ length: 20 }, (_, i) => gateway().post(path(w)).set(bearer(admin.api_key)).send({ name: `cam${i}` })));
    const made = creates.filter((r) => r.status === 201).map((r) => r.body as Uploader);
    expect(made).toHaveLength(3);
    for (const r of creates.filter((x) => x.status !== 201)) expect(expectError(r, 409, 'limit_exceeded')).toMatchObject({ limit_value: 50, current: 50 });
    expect((await storeUsersOf(w.warehouse_id)).sort()).toEqual(made.map((u) => u.iam_user).sort());
    expect((await sql(`SELECT count(*)::int AS n FROM uploaders WHERE warehouse_id = $1 AND status = 'active'`, [w.warehouse_id]))[0].n).toBe(50);
  }, 120_000);
});
