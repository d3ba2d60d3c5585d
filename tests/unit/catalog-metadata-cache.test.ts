// The catalog's metadata file cache (services/catalog/src/metadata-files.ts)
// is bounded by bytes: a table with megabytes of metadata must not be able to
// fill the catalog's heap (a bench with thousands of unmaintained snapshots
// once did, with a cache bounded only by its number of files). Read through
// the real store: a file still cached answers after its object is deleted,
// an evicted one does not.
import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { newTableMetadata, serializeTableMetadata } from '@floe/iceberg';
import { StorageError } from '@floe/storage';
import { MetadataFiles } from '../../services/catalog/src/metadata-files';
import { adminStorage } from '../support/store';

const bucket = `it-${randomBytes(3).toString('hex')}-meta--tables`;
const store = adminStorage();
const objects = store.objectsAs({ accessKeyId: process.env.FLOE_S3_ADMIN_ACCESS_KEY!, secretAccessKey: process.env.FLOE_S3_ADMIN_SECRET_KEY! });
const location = (n: number) => `s3://${bucket}/t/metadata/0000${n}.metadata.json`;

/** A metadata file of about `bytes` (a long property pads it). */
const file = (bytes: number) => serializeTableMetadata(newTableMetadata({
  location: `s3://${bucket}/t`, schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] },
  properties: { pad: 'x'.repeat(bytes) },
}));

beforeAll(async () => {
  await store.ensureBucket(bucket);
  for (const n of [1, 2, 3, 4]) await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `t/metadata/0000${n}.metadata.json`, Body: file(n === 4 ? 400_000 : 10_000) }));
});

afterAll(async () => {
  for (const n of [1, 2, 3, 4]) await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: `t/metadata/0000${n}.metadata.json` })).catch(() => undefined);
  await store.removeBucket(bucket).catch(() => undefined);
});

test('the cache keeps what fits its byte budget, the least recently used going first; a file over the budget is never kept', async () => {
  // Room for two parsed files of ~10 KB (each counted as its text and six times that for its parsed form), not three.
  const cache = new MetadataFiles(200_000);
  await cache.readParsed(objects, location(1));
  await cache.readParsed(objects, location(2));
  await cache.read(objects, location(1)); // 1 is now the most recently used
  await cache.readParsed(objects, location(3)); // evicts 2
  expect(cache.heldBytes).toBeLessThanOrEqual(200_000);
  await cache.readParsed(objects, location(4)); // ~400 KB: over the whole budget, read but not kept
  expect(cache.heldBytes).toBeLessThanOrEqual(200_000);

  for (const n of [1, 2, 3, 4]) await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: `t/metadata/0000${n}.metadata.json` }));
  expect((await cache.readParsed(objects, location(1))).properties?.pad).toHaveLength(10_000);
  expect((await cache.readParsed(objects, location(3))).properties?.pad).toHaveLength(10_000);
  await expect(cache.read(objects, location(2))).rejects.toThrow(StorageError);
  await expect(cache.read(objects, location(4))).rejects.toThrow(StorageError);
});
