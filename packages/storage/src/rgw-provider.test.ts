// Integration: every confinement the spec promises, against the real Ceph RGW
// that `npm test` starts, with the AWS SDK, Debian's aws CLI and boto3 using
// the credentials the provider hands out.
import { randomBytes } from 'node:crypto';
import {
  CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  DeletePublicAccessBlockCommand, GetObjectCommand, ListObjectsV2Command, PutBucketAclCommand, PutBucketPolicyCommand,
  PutObjectAclCommand, PutObjectCommand, PutPublicAccessBlockCommand, S3Client, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { startShiftedRgw, stopShiftedRgw } from '../../../scripts/lib/ceph';
import { freePort } from '../../../scripts/lib/infra';
import { adminStorage, awsCli, boto3, storeEndpoint } from '../../../tests/support/store';
import type { IdentityKeys, StoreCredentials } from './index';

const id = randomBytes(3).toString('hex');
const store = adminStorage();
const A = { table: `it-${id}-a`, blob: `it-${id}-a--blobs`, rw: `t-${id}-a`, ro: `t-${id}-a-ro`, role: `w-${id}-a` };
const B = { table: `it-${id}-b`, blob: `it-${id}-b--blobs`, rw: `t-${id}-b` };
let aRw: IdentityKeys;
let aRo: IdentityKeys;
let bRw: IdentityKeys;

const as = (c: StoreCredentials): S3Client => store.s3As(c);
const status = async (p: Promise<unknown>): Promise<number> => {
  try {
    await p;
    return 200;
  } catch (err) {
    return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? -1;
  }
};
const put = (c: S3Client, Bucket: string, Key: string, Body: string | Buffer = 'x') => c.send(new PutObjectCommand({ Bucket, Key, Body }));
const get = (c: S3Client, Bucket: string, Key: string) => c.send(new GetObjectCommand({ Bucket, Key })).then((r) => r.Body!.transformToString());
const list = (c: S3Client, Bucket: string, Prefix?: string) => c.send(new ListObjectsV2Command({ Bucket, Prefix }));

beforeAll(async () => {
  for (const b of [A.table, A.blob, B.table, B.blob]) await store.ensureBucket(b);
  aRw = await store.ensureIdentity({ uid: A.rw, displayName: 'it a', buckets: [A.table, A.blob], access: 'write', assumableRole: A.role });
  aRo = await store.ensureIdentity({ uid: A.ro, displayName: 'it a ro', buckets: [A.table, A.blob], access: 'read', assumableRole: A.role });
  bRw = await store.ensureIdentity({ uid: B.rw, displayName: 'it b', buckets: [B.table, B.blob], access: 'write' });
  await put(store.s3, B.table, 'secret.txt', 'b-only');
}, 60_000);

afterAll(async () => {
  for (const b of [A.table, A.blob, B.table, B.blob]) await store.removeBucket(b).catch(() => undefined);
  for (const u of [A.rw, A.ro, B.rw]) await store.deleteIdentity(u).catch(() => undefined);
  await store.deleteRole(A.role).catch(() => undefined);
}, 60_000);

describe('buckets and identities are idempotent', () => {
  test('creating twice reports the second as existing; the same key comes back', async () => {
    expect(await store.ensureBucket(A.table)).toEqual({ created: false });
    const again = await store.ensureIdentity({ uid: A.rw, displayName: 'it a', buckets: [A.table, A.blob], access: 'write', assumableRole: A.role });
    expect(again).toMatchObject({ created: false, accessKeyId: aRw.accessKeyId, secretAccessKey: aRw.secretAccessKey });
    expect(aRw.created).toBe(true);
  });
});

describe('a warehouse identity reaches its own two buckets and nothing else', () => {
  test('AWS SDK: read, write, list and delete in its buckets', async () => {
    const c = as(aRw);
    for (const bucket of [A.table, A.blob]) {
      await put(c, bucket, 'ns/t/data.parquet', 'hello');
      expect(await get(c, bucket, 'ns/t/data.parquet')).toBe('hello');
      expect((await list(c, bucket, 'ns/')).Contents?.map((o) => o.Key)).toEqual(['ns/t/data.parquet']);
      await c.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'ns/t/data.parquet' }));
    }
  });

  test('AWS SDK: another warehouse\'s bucket is 403 for read, write and list; creating a bucket is refused', async () => {
    const c = as(aRw);
    expect(await status(get(c, B.table, 'secret.txt'))).toBe(403);
    expect(await status(put(c, B.table, 'intruder.txt'))).toBe(403);
    expect(await status(list(c, B.blob))).toBe(403);
    const created = await status(c.send(new CreateBucketCommand({ Bucket: `it-${id}-rogue` })));
    expect(created).not.toBe(200);
    expect(await store.bucketExists(`it-${id}-rogue`)).toBe(false);
  });

  test('the read-only identity reads but cannot write or delete', async () => {
    await put(store.s3, A.table, 'ro/file.txt', 'readable');
    const c = as(aRo);
    expect(await get(c, A.table, 'ro/file.txt')).toBe('readable');
    expect((await list(c, A.table, 'ro/')).KeyCount).toBe(1);
    expect(await status(put(c, A.table, 'ro/new.txt'))).toBe(403);
    expect(await status(c.send(new DeleteObjectCommand({ Bucket: A.table, Key: 'ro/file.txt' })))).toBe(403);
    expect(await status(get(c, B.table, 'secret.txt'))).toBe(403);
  });

  test('Debian aws CLI: the same confinement', async () => {
    const ok = await awsCli(aRw, ['s3api', 'put-object', '--bucket', A.blob, '--key', 'cli/hello.txt', '--body', '/etc/hostname']);
    expect(ok).toMatchObject({ code: 0, status: 200 });
    const ls = await awsCli(aRw, ['s3', 'ls', `s3://${A.blob}/cli/`]);
    expect(ls).toMatchObject({ code: 0, status: 200 });
    expect(ls.out).toContain('hello.txt');
    const other = await awsCli(aRw, ['s3api', 'get-object', '--bucket', B.table, '--key', 'secret.txt', '/tmp/floe-cli-out']);
    expect(other.code).not.toBe(0);
    expect(other.status).toBe(403);
    const roWrite = await awsCli(aRo, ['s3api', 'put-object', '--bucket', A.blob, '--key', 'cli/nope.txt', '--body', '/etc/hostname']);
    expect(roWrite.code).not.toBe(0);
    expect(roWrite.status).toBe(403);
    const mb = await awsCli(aRw, ['s3api', 'create-bucket', '--bucket', `it-${id}-cli-rogue`]);
    expect(mb.code).not.toBe(0);
    expect(mb.status).toBe(403);
    expect(await store.bucketExists(`it-${id}-cli-rogue`)).toBe(false);
  }, 60_000);

  test('the storage probe passes as the read/write identity and fails as the read-only one', async () => {
    const okProbe = await store.probe(aRw, [A.table, A.blob]);
    expect(okProbe.ok).toBe(true);
    expect(okProbe.buckets).toEqual([{ bucket: A.table, ok: true }, { bucket: A.blob, ok: true }]);
    const roProbe = await store.probe(aRo, [A.table]);
    expect(roProbe).toMatchObject({ ok: false, buckets: [{ bucket: A.table, ok: false, error: 'denied' }] });
    expect((await list(store.s3, A.table, '.floe-probe/')).KeyCount).toBe(0);
  });
});

describe('vended sessions (STS AssumeRole narrowed to one table prefix)', () => {
  let roleArn: string;
  beforeAll(async () => {
    roleArn = (await store.ensureRole({ roleName: A.role, trustedUids: [A.rw, A.ro], buckets: [A.table, A.blob] })).arn;
    await put(store.s3, A.table, 'ns/t1/metadata/v1.json', 't1');
    await put(store.s3, A.table, 'ns/t2/metadata/v1.json', 't2');
  });

  test('ensureRole is idempotent and returns the same ARN', async () => {
    expect((await store.ensureRole({ roleName: A.role, trustedUids: [A.rw, A.ro], buckets: [A.table, A.blob] })).arn).toBe(roleArn);
  });

  test('a read session reads its prefix, not a sibling, and cannot write', async () => {
    const s = await store.assumeSession({ roleArn, as: aRo, bucket: A.table, prefix: 'ns/t1/', access: 'read' });
    expect(s.sessionToken.length).toBeGreaterThan(10);
    const inSeconds = (s.expiration.getTime() - Date.now()) / 1000;
    expect(inSeconds).toBeGreaterThan(800);
    expect(inSeconds).toBeLessThanOrEqual(905);
    const c = as(s);
    expect(await get(c, A.table, 'ns/t1/metadata/v1.json')).toBe('t1');
    expect((await list(c, A.table, 'ns/t1/')).KeyCount).toBe(1);
    expect(await status(get(c, A.table, 'ns/t2/metadata/v1.json'))).toBe(403);
    expect(await status(list(c, A.table, 'ns/t2/'))).toBe(403);
    expect(await status(put(c, A.table, 'ns/t1/data/x.parquet'))).toBe(403);
  });

  test('a write session writes under its prefix only', async () => {
    const c = as(await store.assumeSession({ roleArn, as: aRw, bucket: A.table, prefix: 'ns/t1/', access: 'write' }));
    await put(c, A.table, 'ns/t1/data/part-0.parquet', 'rows');
    expect(await get(c, A.table, 'ns/t1/data/part-0.parquet')).toBe('rows');
    expect(await status(put(c, A.table, 'ns/t2/data/part-0.parquet'))).toBe(403);
    expect(await status(put(c, A.blob, 'ns/t1/x'))).toBe(403);
  });

  test('another warehouse\'s identity cannot assume the role', async () => {
    await expect(store.assumeSession({ roleArn, as: bRw, bucket: A.table, prefix: 'ns/t1/', access: 'read' })).rejects.toMatchObject({ kind: 'denied' });
  });

  test('a session stops working after it expires (seen through a gateway whose clock runs 20 minutes ahead)', async () => {
    // RGW never vends sessions shorter than 900 s; instead of waiting, ask a second radosgw on the
    // same cluster whose clock is 20 minutes ahead, signing requests with the same offset.
    const port = await freePort();
    const ahead = 20 * 60;
    const endpoint = await startShiftedRgw(port, ahead);
    try {
      const future = (c: StoreCredentials) => new S3Client({
        endpoint, region: storeEndpoint().region, forcePathStyle: true, credentials: c, systemClockOffset: ahead * 1000, maxAttempts: 1,
      });
      const short = await store.assumeSession({ roleArn, as: aRo, bucket: A.table, prefix: 'ns/t1/', access: 'read' });
      const long = await store.assumeSession({ roleArn, as: aRo, bucket: A.table, prefix: 'ns/t1/', access: 'read', durationSeconds: 3600 });
      expect(await get(as(short), A.table, 'ns/t1/metadata/v1.json')).toBe('t1');
      // Controls: at +20 min a long-term key and a one-hour session still work...
      expect(await get(future(aRo), A.table, 'ns/t1/metadata/v1.json')).toBe('t1');
      expect(await get(future(long), A.table, 'ns/t1/metadata/v1.json')).toBe('t1');
      // ...while the 900 s session has expired.
      expect(await status(get(future(short), A.table, 'ns/t1/metadata/v1.json'))).toBe(403);
    } finally {
      await stopShiftedRgw(port);
    }
  }, 90_000);
});

describe('uploaders: write-only under a prefix of the blob bucket', () => {
  test('AWS SDK: PUT (single and multipart) under its prefix; no PUT elsewhere, no GET, no list; revoke refuses the key', async () => {
    const up = await store.createUploader({ uid: `u-${id}-cam1`, displayName: 'camera 1', bucket: A.blob, prefix: 'cams/1/', list: false });
    const c = as(up);
    await put(c, A.blob, 'cams/1/frame-001.jpg', 'jpeg');
    const mp = await c.send(new CreateMultipartUploadCommand({ Bucket: A.blob, Key: 'cams/1/big.bin' }));
    const part = await c.send(new UploadPartCommand({ Bucket: A.blob, Key: 'cams/1/big.bin', UploadId: mp.UploadId, PartNumber: 1, Body: Buffer.alloc(1024, 1) }));
    await c.send(new CompleteMultipartUploadCommand({ Bucket: A.blob, Key: 'cams/1/big.bin', UploadId: mp.UploadId, MultipartUpload: { Parts: [{ ETag: part.ETag, PartNumber: 1 }] } }));
    // The bucket owner lists (and may delete) uploads; reading them is the warehouse identity's job.
    const uploaded = (await list(store.s3, A.blob, 'cams/1/')).Contents ?? [];
    expect(uploaded.map((o) => [o.Key, o.Size])).toEqual([['cams/1/big.bin', 1024], ['cams/1/frame-001.jpg', 4]]);
    expect(await get(as(aRw), A.blob, 'cams/1/frame-001.jpg')).toBe('jpeg');
    expect(await status(put(c, A.blob, 'cams/2/frame.jpg'))).toBe(403);
    expect(await status(put(c, A.table, 'cams/1/frame.jpg'))).toBe(403);
    expect(await status(get(c, A.blob, 'cams/1/frame-001.jpg'))).toBe(403);
    expect(await status(list(c, A.blob, 'cams/1/'))).toBe(403);
    expect(await status(c.send(new DeleteObjectCommand({ Bucket: A.blob, Key: 'cams/1/frame-001.jpg' })))).toBe(403);

    const revoked = await store.revokeUploader(up.uid);
    // RGW drops a user's policies together with its key, so the policy step may find nothing left.
    expect(revoked).toMatchObject({ access_keys: 'deleted', user: 'deleted', writes: 3 });
    expect(['deleted', 'absent']).toContain(revoked.user_policy);
    expect(await status(put(c, A.blob, 'cams/1/after-revoke.jpg'))).toBe(403);
    expect(await store.revokeUploader(up.uid)).toEqual({ access_keys: 'absent', user_policy: 'absent', user: 'absent', writes: 0 });
  });

  test('boto3: with list, listing works only with its prefix', async () => {
    const up = await store.createUploader({ uid: `u-${id}-cam2`, displayName: 'camera 2', bucket: A.blob, prefix: 'cams/2/', list: true });
    const result = await boto3(up, [
      `B = ${JSON.stringify(A.blob)}`,
      'print(json.dumps({',
      '  "put_own": code(lambda: s3.put_object(Bucket=B, Key="cams/2/a.jpg", Body=b"x")),',
      '  "put_other": code(lambda: s3.put_object(Bucket=B, Key="cams/3/a.jpg", Body=b"x")),',
      '  "list_own": code(lambda: s3.list_objects_v2(Bucket=B, Prefix="cams/2/")),',
      '  "list_all": code(lambda: s3.list_objects_v2(Bucket=B)),',
      '  "list_other": code(lambda: s3.list_objects_v2(Bucket=B, Prefix="cams/3/")),',
      '  "get_own": code(lambda: s3.get_object(Bucket=B, Key="cams/2/a.jpg")),',
      '}))',
    ].join('\n'));
    expect(result).toEqual({ put_own: 'ok', put_other: '403', list_own: 'ok', list_all: '403', list_other: '403', get_own: '403' });
    await store.revokeUploader(up.uid);
    expect(await boto3(up, `print(json.dumps(code(lambda: s3.put_object(Bucket=${JSON.stringify(A.blob)}, Key="cams/2/b.jpg", Body=b"x"))))`)).toBe('403');
  }, 60_000);
});

describe('public read', () => {
  test('an unsigned GET works while public; unsigned PUT and LIST never do; unpublish refuses at once', async () => {
    const { endpoint } = storeEndpoint();
    await put(store.s3, A.table, 'ns/pub/metadata/v1.metadata.json', '{"format-version":2}');
    const url = `${endpoint}/${A.table}/ns/pub/metadata/v1.metadata.json`;
    expect((await fetch(url)).status).toBe(403);

    const on = await store.setPublicRead(A.table, true);
    expect(on.changed).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"format-version":2}');
    expect((await fetch(`${endpoint}/${A.table}/ns/pub/x.json`, { method: 'PUT', body: 'x' })).status).toBe(403);
    expect((await fetch(`${endpoint}/${A.table}?list-type=2`)).status).toBe(403);
    expect((await store.setPublicRead(A.table, true)).changed).toBe(false);

    const off = await store.setPublicRead(A.table, false);
    expect(off).toEqual({ changed: true, policy: null });
    expect((await fetch(url)).status).toBe(403);
  });

  test('with a prefix only the objects under it are public; another prefix replaces the statement', async () => {
    const { endpoint } = storeEndpoint();
    await put(store.s3, A.table, 'open/t/v1.metadata.json', 'open');
    await put(store.s3, A.table, 'closed/t/v1.metadata.json', 'closed');
    await put(store.s3, A.table, 'opened/t/v1.metadata.json', 'opened');
    const status = async (key: string) => (await fetch(`${endpoint}/${A.table}/${key}`)).status;

    const on = await store.setPublicRead(A.table, true, 'open/');
    expect(on.changed).toBe(true);
    expect(JSON.stringify(on.policy)).toContain(`arn:aws:s3:::${A.table}/open/*`);
    expect([await status('open/t/v1.metadata.json'), await status('closed/t/v1.metadata.json'), await status('opened/t/v1.metadata.json')]).toEqual([200, 403, 403]);
    expect((await store.setPublicRead(A.table, true, 'open/')).changed).toBe(false);

    expect((await store.setPublicRead(A.table, true, 'closed/')).changed).toBe(true);
    expect([await status('open/t/v1.metadata.json'), await status('closed/t/v1.metadata.json')]).toEqual([403, 200]);
    expect((await store.setPublicRead(A.table, true)).changed).toBe(true);
    expect([await status('open/t/v1.metadata.json'), await status('closed/t/v1.metadata.json')]).toEqual([200, 200]);
    expect((await store.setPublicRead(A.table, false)).changed).toBe(true);
    expect(await status('open/t/v1.metadata.json')).toBe(403);
  });
});

describe('quotas', () => {
  test('a bucket over its quota refuses the next write and still serves reads', async () => {
    await store.setBucketQuota(B.blob, 64 * 1024);
    expect(await store.getBucketQuota(B.blob)).toEqual({ enabled: true, maxBytes: 64 * 1024 });
    const c = as(bRw);
    await put(c, B.blob, 'q/one.bin', Buffer.alloc(40 * 1024));
    expect(await status(put(c, B.blob, 'q/two.bin', Buffer.alloc(40 * 1024)))).toBe(403);
    expect((await get(c, B.blob, 'q/one.bin')).length).toBe(40 * 1024);
    await store.setBucketQuota(B.blob, null);
    expect(await store.getBucketQuota(B.blob)).toEqual({ enabled: false, maxBytes: null });
    await put(c, B.blob, 'q/two.bin', Buffer.alloc(40 * 1024));
  });

  test('the read-only flip: a frozen bucket refuses writes and serves reads', async () => {
    const c = as(bRw);
    await put(c, B.table, 'frozen/a.bin', Buffer.alloc(8 * 1024));
    await store.freezeBucket(B.table);
    expect(await status(put(c, B.table, 'frozen/b.bin', Buffer.alloc(4 * 1024)))).toBe(403);
    expect((await get(c, B.table, 'frozen/a.bin')).length).toBe(8 * 1024);
    await store.setBucketQuota(B.table, null);
    await put(c, B.table, 'frozen/b.bin', Buffer.alloc(4 * 1024));
  });
});

describe('measuring', () => {
  test('listing and admin stats agree on bytes and objects; a capped listing is partial', async () => {
    const bucket = `it-${id}-measure`;
    await store.ensureBucket(bucket);
    const sizes = [10, 200, 3000, 40_000, 5];
    for (const [i, n] of sizes.entries()) await put(store.s3, bucket, `m/${i}`, Buffer.alloc(n));
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(await store.measureByListing(bucket)).toEqual({ bytes: total, objects: 5, pages: 1, page_cap: 50, partial: false });
    const capped = await store.measureByListing(bucket, 2, 2);
    expect(capped).toMatchObject({ objects: 4, pages: 2, page_cap: 2, partial: true });
    expect(capped.bytes).toBeLessThan(total);
    expect(await store.bucketStats(bucket)).toEqual({ bytes: total, objects: 5 });
    await put(store.s3, bucket, 'other/keep', 'k');
    expect(await store.deletePrefix(bucket, 'm/')).toEqual({ objectsDeleted: 5 });
    expect((await list(store.s3, bucket)).Contents?.map((o) => o.Key)).toEqual(['other/keep']);
    expect(await store.removeBucket(bucket)).toEqual({ removed: true, objectsDeleted: 1 });
    expect(await store.removeBucket(bucket)).toEqual({ removed: false, objectsDeleted: 0 });
  });
});

describe('key rotation and removal', () => {
  test('rotation issues the new key before deleting the old; the old is refused afterwards', async () => {
    const uid = `t-${id}-rot`;
    const first = await store.ensureIdentity({ uid, displayName: 'rot', buckets: [A.blob], access: 'write' });
    const { key, retired } = await store.rotateKeys(uid);
    expect(retired).toEqual([first.accessKeyId]);
    await put(as(key), A.blob, 'rot/ok.txt');
    expect(await status(put(as(first), A.blob, 'rot/old.txt'))).toBe(403);
    expect(await store.deleteIdentity(uid)).toEqual({ user: 'deleted', user_policy: 'deleted' });
    expect(await status(put(as(key), A.blob, 'rot/gone.txt'))).toBe(403);
    expect(await store.deleteIdentity(uid)).toEqual({ user: 'absent', user_policy: 'absent' });
  });
});


describe('suspension (a deleted catalog sealed, then restored)', () => {
  test('a suspended identity is refused; reinstated, it reaches its buckets again with its policy (RGW drops policies on a user change)', async () => {
    const uid = `t-${id}-susp`;
    const keys = await store.ensureIdentity({ uid, displayName: 'susp', buckets: [A.blob], access: 'write' });
    try {
      await put(as(keys), A.blob, 'susp/before.txt');
      expect(await store.setIdentitySuspended(uid, true)).toBe('suspended');
      expect(await status(put(as(keys), A.blob, 'susp/while.txt'))).toBe(403);
      expect(await store.setIdentitySuspended(uid, false)).toBe('active');
      await put(as(keys), A.blob, 'susp/after.txt');
      expect((await list(as(keys), A.blob, 'susp/')).Contents?.map((o) => o.Key)).toEqual(['susp/after.txt', 'susp/before.txt']);
      // Still confined: another warehouse's bucket stays refused.
      expect(await status(put(as(keys), B.blob, 'susp/x.txt'))).toBe(403);
      expect(await store.setIdentitySuspended(`${uid}-none`, true)).toBe('absent');
    } finally {
      await store.deleteIdentity(uid);
    }
  });
});

describe('ACLs and bucket settings (nothing public but by a bucket policy the service puts)', () => {
  const NOT_THEIRS = [
    ['PutPublicAccessBlock', (b: string) => new PutPublicAccessBlockCommand({ Bucket: b, PublicAccessBlockConfiguration: { IgnorePublicAcls: false } })],
    ['DeletePublicAccessBlock', (b: string) => new DeletePublicAccessBlockCommand({ Bucket: b })],
    ['PutBucketPolicy', (b: string) => new PutBucketPolicyCommand({ Bucket: b, Policy: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: '*', Action: ['s3:GetObject'], Resource: [`arn:aws:s3:::${b}/*`] }] }) })],
    ['PutBucketAcl', (b: string) => new PutBucketAclCommand({ Bucket: b, ACL: 'public-read' })],
  ] as const;

  test('every bucket made ignores public ACLs; no identity or session may change a bucket\'s settings', async () => {
    expect(await store.publicAclsIgnored(A.table)).toBe(true);
    expect(await store.publicAclsIgnored(A.blob)).toBe(true);
    const { arn } = await store.ensureRole({ roleName: A.role, trustedUids: [A.rw, A.ro], buckets: [A.table, A.blob] });
    const session = await store.assumeSession({ roleArn: arn, as: aRw, bucket: A.table, prefix: 'ns/t1/', access: 'write' });
    for (const who of [aRw, aRo, session]) {
      const refused = await Promise.all(NOT_THEIRS.map(async ([name, cmd]) => [name, await status(as(who).send(cmd(A.table) as never))]));
      expect(refused).toEqual(NOT_THEIRS.map(([name]) => [name, 403]));
    }
    expect(await store.publicAclsIgnored(A.table)).toBe(true);
  });

  test('AWS SDK: an identity cannot send an ACL; a grant to another identity on a copy reaches nobody', async () => {
    expect(await status(as(aRw).send(new PutObjectCommand({ Bucket: A.blob, Key: 'acl/a', Body: 'x', ACL: 'public-read' })))).toBe(403);
    expect(await status(as(aRw).send(new PutObjectCommand({ Bucket: A.blob, Key: 'acl/b', Body: 'x', GrantRead: `id="${B.rw}"` })))).toBe(403);
    await put(as(aRw), A.blob, 'acl/c', 'secret');
    expect(await status(as(aRw).send(new PutObjectAclCommand({ Bucket: A.blob, Key: 'acl/c', GrantRead: `id="${B.rw}"` })))).toBe(403);
    // RGW Pacific shows a policy no ACL on a copy: the store takes it, and B's identity, confined to its own buckets, still cannot read.
    expect(await status(as(aRw).send(new CopyObjectCommand({ Bucket: A.blob, Key: 'acl/d', CopySource: `${A.blob}/acl/c`, GrantRead: `id="${B.rw}"` })))).toBe(200);
    expect(await status(get(as(bRw), A.blob, 'acl/d'))).toBe(403);
    expect((await fetch(`${storeEndpoint().endpoint}/${A.blob}/acl/d`)).status).toBe(403);
  });

  test('a role that refuses sessions issued before a moment: earlier sessions are refused, later ones work', async () => {
    const { arn } = await store.ensureRole({ roleName: A.role, trustedUids: [A.rw, A.ro], buckets: [A.table, A.blob] });
    const before = await store.assumeSession({ roleArn: arn, as: aRw, bucket: A.table, prefix: 'ns/cut/', access: 'write' });
    await put(as(before), A.table, 'ns/cut/a');
    await new Promise((r) => setTimeout(r, 1100)); // token issue times are whole seconds
    const cut = new Date();
    await new Promise((r) => setTimeout(r, 1100));
    try {
      await store.ensureRole({ roleName: A.role, trustedUids: [A.rw, A.ro], buckets: [A.table, A.blob], sessionsIssuedAfter: cut });
      const after = await store.assumeSession({ roleArn: arn, as: aRw, bucket: A.table, prefix: 'ns/cut/', access: 'write' });
      expect(await status(put(as(before), A.table, 'ns/cut/b'))).toBe(403);
      expect(await status(get(as(before), A.table, 'ns/cut/a'))).toBe(403);
      expect(await status(put(as(after), A.table, 'ns/cut/c'))).toBe(200);
    } finally {
      await store.ensureRole({ roleName: A.role, trustedUids: [A.rw, A.ro], buckets: [A.table, A.blob] });
    }
  });
});
