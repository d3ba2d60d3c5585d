import type { StorageProvider } from '@floe/storage';
import { forbidden, IcebergError } from './errors';
import { checkedLocation, keyPrefixOf } from './locations';
import type { WarehouseRow } from './store/warehouses';

// X-Iceberg-Access-Delegation: vended-credentials — an STS session on the
// warehouse's role, narrowed to the table's location, read-only for the
// read-only credential. Sessions last 900 s. The location is checked again
// here, whatever wrote it: a session policy is only as narrow as its prefix,
// and a location left by an older version (another bucket, a `*`) must never
// become one.

export interface StorageCredential {
  prefix: string;
  config: Record<string, string>;
}

export async function vendTableCredentials(
  storage: StorageProvider, wh: WarehouseRow, tableLocation: string, access: 'read' | 'write', s3: { endpoint: string; region: string },
): Promise<StorageCredential> {
  if (!wh.roleArn) throw new Error(`warehouse ${wh.id} has no role to vend sessions from`);
  let location: string;
  try {
    location = checkedLocation(tableLocation, wh.tableBucket, 'Table location');
  } catch (err) {
    if (!(err instanceof IcebergError)) throw err;
    throw forbidden(`No storage credentials are vended for this table: ${err.message}. Move it with set-location first.`);
  }
  const session = await storage.assumeSession({
    roleArn: wh.roleArn, as: access === 'write' ? wh.rw : wh.ro, bucket: wh.tableBucket, prefix: keyPrefixOf(location, wh.tableBucket), access,
  });
  return {
    prefix: location,
    config: {
      's3.access-key-id': session.accessKeyId,
      's3.secret-access-key': session.secretAccessKey,
      's3.session-token': session.sessionToken,
      's3.session-token-expires-at-ms': String(session.expiration.getTime()),
      's3.endpoint': s3.endpoint,
      's3.path-style-access': 'true',
      's3.region': s3.region,
      'client.region': s3.region,
    },
  };
}
