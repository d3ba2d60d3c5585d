// IAM policy documents, built as plain data. RGW wants CreateRole documents
// compact (no spaces), so every document is serialised with JSON.stringify
// without indentation.

export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: Array<Record<string, unknown>>;
}

const doc = (...Statement: Array<Record<string, unknown>>): PolicyDocument => ({ Version: '2012-10-17', Statement });

const bucketArn = (b: string) => `arn:aws:s3:::${b}`;
const objectsArn = (b: string, prefix = '') => `arn:aws:s3:::${b}/${prefix}*`;
export const userArn = (uid: string) => `arn:aws:iam:::user/${uid}`;
export const roleArn = (name: string) => `arn:aws:iam:::role/${name}`;

/** What engines need on objects: read, write, delete, multipart. No bucket configuration. */
export const OBJECT_WRITE_ACTIONS = [
  's3:GetObject', 's3:PutObject', 's3:DeleteObject',
  's3:AbortMultipartUpload', 's3:ListMultipartUploadParts',
];
export const OBJECT_READ_ACTIONS = ['s3:GetObject'];
export const BUCKET_READ_ACTIONS = ['s3:ListBucket', 's3:GetBucketLocation', 's3:ListBucketMultipartUploads'];

/** A warehouse identity: its two buckets and nothing else; read-only drops every write. */
export function identityPolicy(buckets: string[], access: 'read' | 'write', assumableRole?: string): PolicyDocument {
  const statements: Array<Record<string, unknown>> = [
    { Sid: 'Buckets', Effect: 'Allow', Action: BUCKET_READ_ACTIONS, Resource: buckets.map(bucketArn) },
    { Sid: 'Objects', Effect: 'Allow', Action: access === 'write' ? OBJECT_WRITE_ACTIONS : OBJECT_READ_ACTIONS, Resource: buckets.map((b) => objectsArn(b)) },
  ];
  if (assumableRole) statements.push({ Sid: 'Vend', Effect: 'Allow', Action: ['sts:AssumeRole'], Resource: [roleArn(assumableRole)] });
  return doc(...statements);
}

/** Who may assume a warehouse's role: its own identities. */
export function roleTrustPolicy(trustedUids: string[]): PolicyDocument {
  return doc({ Effect: 'Allow', Principal: { AWS: trustedUids.map(userArn) }, Action: ['sts:AssumeRole'] });
}

/** The most a vended session can ever do: what the warehouse identity can. */
export function rolePermissionPolicy(buckets: string[]): PolicyDocument {
  return identityPolicy(buckets, 'write');
}

/** Narrows a session to one object prefix of one bucket (a table's location). */
export function sessionPolicy(bucket: string, prefix: string, access: 'read' | 'write'): PolicyDocument {
  return doc(
    { Effect: 'Allow', Action: ['s3:ListBucket'], Resource: [bucketArn(bucket)], Condition: { StringLike: { 's3:prefix': [`${prefix}*`] } } },
    { Effect: 'Allow', Action: ['s3:GetBucketLocation'], Resource: [bucketArn(bucket)] },
    { Effect: 'Allow', Action: access === 'write' ? OBJECT_WRITE_ACTIONS : OBJECT_READ_ACTIONS, Resource: [objectsArn(bucket, prefix)] },
  );
}

/**
 * What an uploader may do to objects under its prefix: PUT, single or
 * multipart. RGW checks `s3:PutObject` for CreateMultipartUpload, UploadPart
 * and CompleteMultipartUpload alike; only AbortMultipartUpload has its own
 * name (clients abort a failed multipart upload). Listing an upload's parts
 * is a read and is not granted.
 */
export const UPLOADER_ACTIONS = ['s3:PutObject', 's3:AbortMultipartUpload'];

/**
 * Write-only under a prefix of the blob bucket; listing only of that prefix,
 * and only when asked. The explicit Deny matters: RGW makes the uploader the
 * owner of what it uploads, and an owner's ACL would otherwise let it read
 * and delete its own uploads.
 */
export function uploaderPolicy(bucket: string, prefix: string, list: boolean): PolicyDocument {
  const statements: Array<Record<string, unknown>> = [
    { Sid: 'Upload', Effect: 'Allow', Action: UPLOADER_ACTIONS, Resource: [objectsArn(bucket, prefix)] },
    {
      Sid: 'NoReadNoDelete',
      Effect: 'Deny',
      Action: ['s3:GetObject', 's3:GetObjectVersion', 's3:GetObjectAcl', 's3:PutObjectAcl', 's3:DeleteObject', 's3:DeleteObjectVersion'],
      Resource: ['arn:aws:s3:::*'],
    },
  ];
  if (list) {
    statements.push({ Sid: 'List', Effect: 'Allow', Action: ['s3:ListBucket'], Resource: [bucketArn(bucket)], Condition: { StringLike: { 's3:prefix': [`${prefix}*`] } } });
  }
  return doc(...statements);
}

export const PUBLIC_READ_SID = 'FloePublicRead';

/** Anonymous GET of every object; no listing, no writes. */
export function publicReadStatement(bucket: string): Record<string, unknown> {
  return { Sid: PUBLIC_READ_SID, Effect: 'Allow', Principal: '*', Action: ['s3:GetObject'], Resource: [objectsArn(bucket)] };
}

/** What a bucket's lifecycle configuration is changed with; a table bucket must never let anyone do it. */
const LIFECYCLE_ACTION = 's3:PutLifecycleConfiguration';

/** Whether an IAM action pattern (wildcards `*` and `?`, case-insensitive) covers `action`. */
function actionMatches(pattern: string, action: string): boolean {
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'i').test(action);
}

/**
 * Whether a bucket policy statement is about lifecycle: its Action covers
 * setting a lifecycle configuration (`s3:*` and `*` included), or its
 * NotAction leaves it out and so allows it.
 */
export function isLifecycleStatement(statement: Record<string, unknown>): boolean {
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []);
  if (list(statement.Action).some((a) => actionMatches(a, LIFECYCLE_ACTION))) return true;
  return statement.NotAction !== undefined && !list(statement.NotAction).some((a) => actionMatches(a, LIFECYCLE_ACTION));
}

export function compact(policy: PolicyDocument | Record<string, unknown>): string {
  return JSON.stringify(policy);
}
