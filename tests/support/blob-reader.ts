import type { S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import type { StackState } from '../../scripts/lib/stack';
import { stackKeyring } from './keyring';
import { adminStorage } from './store';

/** Objects in a blob bucket belong to the warehouse's identity: an S3 client signed as it (its secret key opened with the stack's data key). */
export async function blobReader(state: Pick<StackState, 'database_url' | 'data_keys'>, warehouseId: string): Promise<S3Client> {
  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  try {
    const { rows } = await pool.query(`SELECT storage_access_key, storage_secret_key FROM warehouses WHERE id = $1`, [warehouseId]);
    return adminStorage().s3As({ accessKeyId: rows[0].storage_access_key, secretAccessKey: stackKeyring(state).open(rows[0].storage_secret_key) });
  } finally {
    await pool.end();
  }
}
