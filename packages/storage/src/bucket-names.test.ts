import { isValidBucketName, MAX_BUCKET_NAME, warehouseBuckets } from './bucket-names';

test('table and blob buckets follow the spec', () => {
  expect(warehouseBuckets({ handle: 'acme' }, 'sales_eu')).toEqual({ ok: true, table: 'acme--sales-eu', blob: 'acme--sales-eu--blobs' });
  expect(warehouseBuckets({ principalId: 'p_0a1b2c3d4e5f60718293a4b5c6d7e8f9' }, 'lake')).toEqual({ ok: true, table: 'u-0a1b2c3d--lake', blob: 'u-0a1b2c3d--lake--blobs' });
});

test('buckets map _ to - and stay within 63 characters', () => {
  const max = 63 - 'acme'.length - 2 - '--blobs'.length;
  expect(warehouseBuckets({ handle: 'acme' }, 'a'.repeat(max)).ok).toBe(true);
  expect(warehouseBuckets({ handle: 'acme' }, 'a'.repeat(max + 1))).toEqual({
    ok: false, ownerPart: 'acme', maxNameLength: max, bucketWouldBe: `acme--${'a'.repeat(max + 1)}--blobs`,
  });
  const outside = warehouseBuckets({ principalId: 'p_0a1b2c3d4e5f60718293a4b5c6d7e8f9' }, 'a'.repeat(60));
  expect(outside).toMatchObject({ ok: false, ownerPart: 'u-0a1b2c3d', maxNameLength: 63 - 'u-0a1b2c3d'.length - 2 - '--blobs'.length });
});

test('the longest allowed catalog name makes a 63-character blob bucket', () => {
  const refused = warehouseBuckets({ handle: 'acme' }, 'a'.repeat(100));
  if (refused.ok) throw new Error('a 100-character name fits');
  const n = refused.maxNameLength;
  const fits = warehouseBuckets({ handle: 'acme' }, 'a'.repeat(n));
  if (!fits.ok) throw new Error('the longest allowed name does not fit');
  expect(fits.blob.length).toBe(MAX_BUCKET_NAME);
  expect(isValidBucketName(fits.blob)).toBe(true);
  expect(isValidBucketName(fits.table)).toBe(true);
  const over = warehouseBuckets({ handle: 'acme' }, 'a'.repeat(n + 1));
  if (over.ok) throw new Error('one character over fits');
  expect(isValidBucketName(over.bucketWouldBe)).toBe(false);
});

test.each(['ab', 'Upper', '-lead', 'trail-', 'has_underscore', '192.168.1.1', 'a'.repeat(64)])('%s is not a bucket name', (n) => {
  expect(isValidBucketName(n)).toBe(false);
});
