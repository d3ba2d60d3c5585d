import { StorageError } from './errors';

// One home for `s3://bucket/key` locations, the form Iceberg metadata and the
// catalog's table locations take (`s3a://`, which Hadoop-based writers use,
// is read as the same thing). Everything that turns a location into a bucket
// and a key, or back, goes through here.

export interface S3Location {
  bucket: string;
  key: string;
}

const LOCATION = /^s3a?:\/\/([^/]+)\/(.+)$/;

/**
 * The bucket and key of an `s3://` (or `s3a://`) location with a non-empty
 * key; anything else is a StorageError `invalid` naming `operation`.
 */
export function parseS3Location(location: string, operation = 'parse location'): S3Location {
  const m = LOCATION.exec(location);
  if (!m) throw new StorageError('invalid', operation, `not an s3 location: ${location}`);
  return { bucket: m[1], key: m[2] };
}

/** `s3://<bucket>/<key>`; with an empty key, the bucket's root `s3://<bucket>/`. */
export const s3Uri = (bucket: string, key = ''): string => `s3://${bucket}/${key}`;
