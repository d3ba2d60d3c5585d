// Integration: the lean object client against the real Ceph RGW, checked
// against the AWS SDK reading and writing the same objects.
import { randomBytes } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { adminStorage } from '../../../tests/support/store';
import type { IdentityKeys } from './index';

const id = randomBytes(3).toString('hex');
const store = adminStorage();
const bucket = `it-${id}-oc`;
const other = `it-${id}-oc2`;
const uid = `t-${id}-oc`;
const role = `w-${id}-oc`;
let keys: IdentityKeys;

/** A test against the real RGW: slower than jest's 5 s default when the whole suite loads the store. */
const RGW_TEST_MS = 20_000;

beforeAll(async () => {
  await store.ensureBucket(bucket);
  await store.ensureBucket(other);
  keys = await store.ensureIdentity({ uid, displayName: 'object client', buckets: [bucket], access: 'write', assumableRole: role });
}, 60_000);

afterAll(async () => {
  for (const b of [bucket, other]) await store.removeBucket(b).catch(() => undefined);
  await store.deleteIdentity(uid).catch(() => undefined);
  await store.deleteRole(role).catch(() => undefined);
}, 60_000);

describe('ObjectClient', () => {
  test('PUT then GET round-trips text; the SDK reads the same bytes and content type', async () => {
    const oc = store.objectsAs(keys);
    const text = `{"format-version":2,"note":"é ✓ ${id}"}`;
    await oc.put(bucket, 'ns/t/metadata/00001.metadata.json', text, { contentType: 'application/json' });
    expect(await oc.getText(bucket, 'ns/t/metadata/00001.metadata.json')).toBe(text);
    const sdk = store.s3As(keys);
    const got = await sdk.send(new GetObjectCommand({ Bucket: bucket, Key: 'ns/t/metadata/00001.metadata.json' }));
    expect(got.ContentType).toBe('application/json');
    expect(await got.Body!.transformToString('utf8')).toBe(text);
  }, RGW_TEST_MS);

  test('keys needing escaping are signed and stored under their exact name', async () => {
    const oc = store.objectsAs(keys);
    const key = "a b/c+d=e/(f)!*'/ü%20.json";
    await oc.put(bucket, key, 'odd');
    const sdk = store.s3As(keys);
    const got = await sdk.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(await got.Body!.transformToString()).toBe('odd');
    await sdk.send(new PutObjectCommand({ Bucket: bucket, Key: `${key}.sdk`, Body: 'from sdk' }));
    expect(await oc.getText(bucket, `${key}.sdk`)).toBe('from sdk');
  }, RGW_TEST_MS);

  test('If-None-Match: * refuses to overwrite with a conflict and keeps the first body', async () => {
    const oc = store.objectsAs(keys);
    await oc.put(bucket, 'once.json', 'first', { ifNoneMatch: '*' });
    await expect(oc.put(bucket, 'once.json', 'second', { ifNoneMatch: '*' })).rejects.toMatchObject({ kind: 'conflict', status: 412 });
    expect(await oc.getText(bucket, 'once.json')).toBe('first');
  }, RGW_TEST_MS);

  test('GET of an absent key is not_found; DELETE of it succeeds; DELETE removes', async () => {
    const oc = store.objectsAs(keys);
    await expect(oc.getText(bucket, 'absent.json')).rejects.toMatchObject({ kind: 'not_found', status: 404 });
    await oc.delete(bucket, 'absent.json');
    await oc.put(bucket, 'gone.json', 'x');
    await oc.delete(bucket, 'gone.json');
    const head = store.s3As(keys).send(new HeadObjectCommand({ Bucket: bucket, Key: 'gone.json' }));
    await expect(head).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
  }, RGW_TEST_MS);

  test("another identity's bucket and a wrong secret are denied", async () => {
    await expect(store.objectsAs(keys).put(other, 'x.json', 'x')).rejects.toMatchObject({ kind: 'denied', status: 403 });
    const wrong = store.objectsAs({ accessKeyId: keys.accessKeyId, secretAccessKey: `${keys.secretAccessKey.slice(0, -2)}xx` });
    await expect(wrong.getText(bucket, 'once.json')).rejects.toMatchObject({ kind: 'denied', status: 403 });
  });

  test('STS session credentials (session token) are signed correctly', async () => {
    const roleArn = (await store.ensureRole({ roleName: role, trustedUids: [uid], buckets: [bucket] })).arn;
    const session = await store.assumeSession({ roleArn, as: keys, bucket, prefix: 'ns/t/', access: 'write' });
    const oc = store.objectsAs(session);
    await oc.put(bucket, 'ns/t/data/s.txt', 'session');
    expect(await oc.getText(bucket, 'ns/t/data/s.txt')).toBe('session');
    await expect(oc.put(bucket, 'ns/u/data/s.txt', 'x')).rejects.toMatchObject({ kind: 'denied' });
  }, RGW_TEST_MS);

  test('an unreachable store is unavailable, not a crash', async () => {
    const { ObjectClient } = await import('./object-client');
    const dead = new ObjectClient({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1' }, keys);
    await expect(dead.getText(bucket, 'x')).rejects.toMatchObject({ kind: 'unavailable' });
  }, RGW_TEST_MS);

  test('a bucket document reads back as stored; none is null; a missing bucket is not_found', async () => {
    expect(await store.getLifecycleXml(bucket)).toBeNull();
    await store.putLifecycle(bucket, [{ id: 'a&b', prefix: 'tmp/', expire_days: 3 }]);
    const xml = await store.getLifecycleXml(bucket);
    expect(xml).toContain('<ID>a&amp;b</ID>');
    expect(xml).toContain('<Days>3</Days>');
    await store.deleteLifecycle(bucket);
    expect(await store.getLifecycleXml(bucket)).toBeNull();
    await expect(store.getLifecycleXml(`${bucket}-absent`)).rejects.toMatchObject({ kind: 'not_found', storeCode: 'NoSuchBucket' });
  }, RGW_TEST_MS);

  test('clients are reused per credential', () => {
    expect(store.objectsAs(keys)).toBe(store.objectsAs({ ...keys }));
    expect(store.s3As(keys)).toBe(store.s3As({ ...keys }));
    expect(store.objectsAs(keys)).not.toBe(store.objectsAs({ ...keys, sessionToken: 'x' }));
  });
});
