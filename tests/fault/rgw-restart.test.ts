// Restarting radosgw in the middle of a run loses nothing, and the provider's
// next call succeeds.
import { randomBytes } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { restartRgw } from '../../scripts/lib/ceph';
import { adminStorage } from '../support/store';

const id = randomBytes(3).toString('hex');
const bucket = `it-${id}-fault`;
const store = adminStorage();

afterAll(async () => {
  await store.removeBucket(bucket).catch(() => undefined);
  await store.deleteIdentity(`t-${id}-fault`).catch(() => undefined);
});

test('objects, identities and quotas survive a radosgw restart; the next calls succeed', async () => {
  await store.ensureBucket(bucket);
  const ident = await store.ensureIdentity({ uid: `t-${id}-fault`, displayName: 'fault', buckets: [bucket], access: 'write' });
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'before.txt', Body: 'kept' }));
  await store.setBucketQuota(bucket, 1024 * 1024);

  await restartRgw();

  const read = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'before.txt' }));
  expect(await read.Body!.transformToString()).toBe('kept');
  expect(await store.getBucketQuota(bucket)).toEqual({ enabled: true, maxBytes: 1024 * 1024 });
  const again = await store.ensureIdentity({ uid: `t-${id}-fault`, displayName: 'fault', buckets: [bucket], access: 'write' });
  expect(again).toMatchObject({ created: false, accessKeyId: ident.accessKeyId });
  await store.s3As(ident).send(new PutObjectCommand({ Bucket: bucket, Key: 'after.txt', Body: 'new' }));
  expect(await store.probe(ident, [bucket])).toMatchObject({ ok: true });
});
