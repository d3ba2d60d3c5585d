// Bucket names per the spec: table bucket `<handle>--<catalog with _ as ->`,
// blob bucket `<that>--blobs`; outside an organisation the handle is
// `u-<8 hex of the principal id>`. Buckets are DNS names of at most 63
// characters, so the catalog name's length is bounded per handle.

export const MAX_BUCKET_NAME = 63;
const BLOB_SUFFIX = '--blobs';
const DNS_LABELS = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

export function isValidBucketName(name: string): boolean {
  return name.length >= 3 && name.length <= MAX_BUCKET_NAME && DNS_LABELS.test(name) && !/^\d+\.\d+\.\d+\.\d+$/.test(name);
}

/** The owner part of a bucket name: the organisation handle, or `u-<8 hex>` for a principal without one. */
export function bucketOwnerPart(owner: { handle: string } | { principalId: string }): string {
  if ('handle' in owner) return owner.handle;
  const hex = owner.principalId.replace(/[^0-9a-f]/g, '');
  return `u-${hex.slice(0, 8)}`;
}

export interface WarehouseBuckets {
  table: string;
  blob: string;
}

export function warehouseBucketNames(ownerPart: string, catalogName: string): WarehouseBuckets {
  const table = `${ownerPart}--${catalogName.replace(/_/g, '-')}`;
  return { table, blob: `${table}${BLOB_SUFFIX}` };
}

/** The longest catalog name whose blob bucket still fits in 63 characters for this owner. */
export function maxCatalogNameLength(ownerPart: string): number {
  return MAX_BUCKET_NAME - ownerPart.length - 2 - BLOB_SUFFIX.length;
}
