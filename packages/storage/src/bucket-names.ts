// The bucket naming rule, in one place. Per the spec: the table bucket is
// `<owner>--<catalog with _ as ->`, the blob bucket `<that>--blobs`; the owner
// is the organisation's handle, or `u-<8 hex of the principal id>` outside an
// organisation. Buckets are DNS names of at most 63 characters, so the
// catalog name's length is bounded per owner: `warehouseBuckets` answers the
// two names, or why they do not fit.

export const MAX_BUCKET_NAME = 63;
const BLOB_SUFFIX = '--blobs';
const DNS_LABELS = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

export function isValidBucketName(name: string): boolean {
  return name.length >= 3 && name.length <= MAX_BUCKET_NAME && DNS_LABELS.test(name) && !/^\d+\.\d+\.\d+\.\d+$/.test(name);
}

/** Whose buckets: an organisation (by its handle), or a principal outside any. */
export type BucketOwner = { handle: string } | { principalId: string };

export type WarehouseBuckets =
  | { ok: true; table: string; blob: string }
  /** The name is too long for this owner: the longest that fits, and the blob bucket it would have made. */
  | { ok: false; ownerPart: string; maxNameLength: number; bucketWouldBe: string };

/** The table and blob bucket names of a catalog, or why they do not fit in a bucket name. */
export function warehouseBuckets(owner: BucketOwner, catalogName: string): WarehouseBuckets {
  const ownerPart = bucketOwnerPart(owner);
  const table = `${ownerPart}--${catalogName.replace(/_/g, '-')}`;
  const blob = `${table}${BLOB_SUFFIX}`;
  const maxNameLength = MAX_BUCKET_NAME - ownerPart.length - 2 - BLOB_SUFFIX.length;
  if (catalogName.length > maxNameLength) return { ok: false, ownerPart, maxNameLength, bucketWouldBe: blob };
  return { ok: true, table, blob };
}

/** The owner part of a bucket name: the organisation handle, or `u-<8 hex>` for a principal without one. */
function bucketOwnerPart(owner: BucketOwner): string {
  if ('handle' in owner) return owner.handle;
  const hex = owner.principalId.replace(/[^0-9a-f]/g, '');
  return `u-${hex.slice(0, 8)}`;
}
