import type { RgwStorage } from '@floe/storage';
import type { WarehouseRow } from './store/warehouses';
import { parseS3Location } from './metadata-files';

// X-Iceberg-Access-Delegation: vended-credentials — an STS session on the
// warehouse's role, narrowed to the table's location, read-only for the
// read-only credential. Sessions last 900 s.

export interface StorageCredential {
  prefix: string;
  config: Record<string, string>;
}

export async function vendTableCredentials(
  storage: RgwStorage, wh: WarehouseRow, tableLocation: string, access: 'read' | 'write', s3: { endpoint: string; region: string },
): Promise<StorageCredential> {
  if (!wh.roleArn) throw new Error(`warehouse ${wh.id} has no role to vend sessions from`);
  const { bucket, key } = parseS3Location(tableLocation.endsWith('/') ? tableLocation : `${tableLocation}/`);
  const session = await storage.assumeSession({
    roleArn: wh.roleArn, as: access === 'write' ? wh.rw : wh.ro, bucket, prefix: key, access,
  });
  return {
    prefix: tableLocation,
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
