import { bucketOwnerPart, isValidBucketName, maxCatalogNameLength, warehouseBucketNames } from './bucket-names';

test('table and blob buckets follow the spec', () => {
  expect(warehouseBucketNames('acme', 'sales_eu')).toEqual({ table: 'acme--sales-eu', blob: 'acme--sales-eu--blobs' });
  expect(bucketOwnerPart({ principalId: 'p_0a1b2c3d4e5f60718293a4b5c6d7e8f9' })).toBe('u-0a1b2c3d');
  expect(bucketOwnerPart({ handle: 'acme' })).toBe('acme');
});

test('the longest allowed catalog name makes a 63-character blob bucket', () => {
  const owner = 'acme';
  const n = maxCatalogNameLength(owner);
  const { table, blob } = warehouseBucketNames(owner, 'a'.repeat(n));
  expect(blob.length).toBe(63);
  expect(isValidBucketName(blob)).toBe(true);
  expect(isValidBucketName(table)).toBe(true);
  expect(isValidBucketName(warehouseBucketNames(owner, 'a'.repeat(n + 1)).blob)).toBe(false);
});

test.each(['ab', 'Upper', '-lead', 'trail-', 'has_underscore', '192.168.1.1', 'a'.repeat(64)])('%s is not a bucket name', (n) => {
  expect(isValidBucketName(n)).toBe(false);
});
