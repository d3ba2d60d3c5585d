import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { adminStorage } from '../support/store';
import { db } from './helpers';

/** Objects in a blob bucket belong to the warehouse's identity: an S3 client signed as it. */
export async function blobReader(warehouseId: string): Promise<S3Client> {
  const pool = db();
  try {
    const { rows } = await pool.query(`SELECT storage_access_key, storage_secret_key FROM warehouses WHERE id = $1`, [warehouseId]);
    return adminStorage().s3As({ accessKeyId: rows[0].storage_access_key, secretAccessKey: rows[0].storage_secret_key });
  } finally {
    await pool.end();
  }
}

export async function objectText(warehouseId: string, bucket: string, key: string): Promise<string> {
  const out = await (await blobReader(warehouseId)).send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return out.Body!.transformToString();
}
