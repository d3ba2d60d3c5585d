// A lifecycle rule expires objects under its prefix and leaves the rest. The
// test cluster runs with `rgw lc debug interval` set, so a day lasts seconds.
import { randomBytes } from 'node:crypto';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { adminStorage } from '../support/store';

const bucket = `it-${randomBytes(3).toString('hex')}-lc--blobs`;
const store = adminStorage();
const dayMs = Number(process.env.FLOE_TEST_LC_DEBUG_INTERVAL ?? 10) * 1000;

afterAll(async () => {
  await store.removeBucket(bucket).catch(() => undefined);
});

test('objects under the rule\'s prefix expire; others stay; the rule reads back and is removable', async () => {
  await store.ensureBucket(bucket);
  for (const key of ['tmp/a.txt', 'tmp/b.txt', 'keep/c.txt']) {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }));
  }
  await store.putLifecycle(bucket, [{ id: 'tmp', prefix: 'tmp/', expire_days: 1 }, { id: 'mpu', abort_incomplete_multipart_days: 1 }]);
  // The store keeps rules ordered by id.
  expect(await store.getLifecycle(bucket)).toEqual({
    configured: true,
    rules: [
      { id: 'mpu', prefix: '', enabled: true, expire_days: null, expire_date: null, abort_incomplete_multipart_days: 1, expressible: true },
      { id: 'tmp', prefix: 'tmp/', enabled: true, expire_days: 1, expire_date: null, abort_incomplete_multipart_days: null, expressible: true },
    ],
  });

  const keys = async () => ((await store.s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key).sort();
  const deadline = Date.now() + Math.max(90_000, dayMs * 9);
  let left = await keys();
  while (left.some((k) => k!.startsWith('tmp/')) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 2000));
    left = await keys();
  }
  expect(left).toEqual(['keep/c.txt']);

  expect(await store.deleteLifecycle(bucket)).toEqual({ hadRules: 2 });
  expect(await store.getLifecycle(bucket)).toEqual({ configured: false, rules: [] });
}, 150_000);
