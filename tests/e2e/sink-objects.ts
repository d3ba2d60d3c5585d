import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { blobReader as blobReaderOf } from '../support/blob-reader';
import { stack } from './helpers';

/** An S3 client signed as the warehouse's own identity, which owns its blob bucket's objects. */
export function blobReader(warehouseId: string): Promise<S3Client> {
  return blobReaderOf(stack(), warehouseId);
}

export async function objectText(warehouseId: string, bucket: string, key: string): Promise<string> {
  const out = await (await blobReader(warehouseId)).send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return out.Body!.transformToString();
}
