import { StorageError } from './errors';
import { parseS3Location, s3Uri } from './s3-location';

test('a location splits into its bucket and key, s3a:// read as s3://', () => {
  expect(parseS3Location('s3://acme--lake/ns/t/metadata/00001-a.metadata.json')).toEqual({ bucket: 'acme--lake', key: 'ns/t/metadata/00001-a.metadata.json' });
  expect(parseS3Location('s3a://b/k')).toEqual({ bucket: 'b', key: 'k' });
  expect(parseS3Location('s3://b/dir/')).toEqual({ bucket: 'b', key: 'dir/' });
});

test.each(['s3://b', 's3://b/', 'http://b/k', 'file:///etc/passwd', '', 'S3://b/k', 's3:/b/k'])('%s is not a location with a key', (l) => {
  expect(() => parseS3Location(l)).toThrow(StorageError);
  expect(() => parseS3Location(l, 'read metadata')).toThrow(/^read metadata: not an s3 location/);
  try {
    parseS3Location(l);
  } catch (err) {
    expect(err).toMatchObject({ kind: 'invalid', retryable: false });
  }
});

test('s3Uri is the inverse, and the bucket root without a key', () => {
  expect(s3Uri('b', 'ns/t')).toBe('s3://b/ns/t');
  expect(s3Uri('b')).toBe('s3://b/');
  const l = 's3://acme--lake/ns/t-0a/data/x.parquet';
  const { bucket, key } = parseS3Location(l);
  expect(s3Uri(bucket, key)).toBe(l);
});
