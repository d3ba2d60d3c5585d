import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

// Reject files age out after 7 days (spec: Limits). A lifecycle rule cannot
// do it: the blob bucket's lifecycle configuration belongs to the user, who
// replaces it whole. So each roll removes its sink's expired reject files.

export const REJECT_RETENTION_DAYS = 7;

export function expiredKeys(objects: Array<{ Key?: string; LastModified?: Date }>, now: number, days = REJECT_RETENTION_DAYS): string[] {
  const cutoff = now - days * 86_400_000;
  return objects.filter((o) => o.Key && o.LastModified && o.LastModified.getTime() < cutoff).map((o) => o.Key!);
}

/** Deletes the expired reject files under `prefix` (as the warehouse's identity, which wrote them); returns how many. */
export async function ageOutRejects(s3: S3Client, bucket: string, prefix: string, now = Date.now()): Promise<number> {
  let removed = 0;
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: 1000 }));
    const keys = expiredKeys(page.Contents ?? [], now);
    if (keys.length) {
      await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }));
      removed += keys.length;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return removed;
}
