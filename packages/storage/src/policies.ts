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

/**
 * Version of the policies below and of the buckets' public-ACL setting. A
 * change of any of them bumps it; the teardown worker's policy sweep
 * (services/teardown-worker/src/storage-policies.ts) applies the current ones
 * to every catalog whose `storage_policy_version` is behind.
 */
export const STORAGE_POLICY_VERSION = 2;

/** The S3 request headers that carry an ACL (canned, or grants), as RGW names them in policy conditions. */
const GRANT_HEADER_KEYS = ['s3:x-amz-grant-read', 's3:x-amz-grant-write', 's3:x-amz-grant-read-acp', 's3:x-amz-grant-write-acp', 's3:x-amz-grant-full-control'];

/**
 * Nothing Floe hands out may set an ACL: publishing (POST …/public, a bucket
 * policy) is the only way anything becomes readable by others. RGW makes the
 * writer the owner of each object it writes, and an owner may otherwise set
 * the object's ACL — `public-read`, or a grant to all users or to another
 * tenant's identity. Denied: the ACL actions, and a PUT carrying a canned ACL
 * (any value, `private` included) or any grant header. RGW Pacific puts no
 * ACL condition keys on a copy or on CreateMultipartUpload, so ACLs sent
 * there cannot be refused by a policy: the buckets ignore public ACLs
 * (`ensureBucket`) and every identity is confined to its own resources
 * (`confinedTo`), so such an ACL reaches nobody.
 */
export function aclDenials(): Array<Record<string, unknown>> {
  return [
    { Sid: 'NoAcl', Effect: 'Deny', Action: ['s3:PutObjectAcl', 's3:PutObjectVersionAcl', 's3:PutBucketAcl'], Resource: ['arn:aws:s3:::*'] },
    { Sid: 'NoCannedAcl', Effect: 'Deny', Action: ['s3:PutObject'], Resource: ['arn:aws:s3:::*'], Condition: { StringLike: { 's3:x-amz-acl': ['?*'] } } },
    // One statement per header: the keys of one condition block must all match.
    ...GRANT_HEADER_KEYS.map((key, i) => ({ Sid: `NoGrant${i}`, Effect: 'Deny', Action: ['s3:PutObject'], Resource: ['arn:aws:s3:::*'], Condition: { StringLike: { [key]: ['*'] } } })),
  ];
}

/**
 * Refuses every S3 action outside `resources`, whatever an object's ACL says:
 * an Allow-only policy leaves other buckets to their ACLs, so a grant some
 * other writer put on an object (to this identity's id, say) would otherwise
 * be honoured. RGW enforces Deny with NotResource (not NotAction).
 */
export function confinedTo(resources: string[]): Record<string, unknown> {
  return { Sid: 'OnlyOwn', Effect: 'Deny', Action: ['s3:*'], NotResource: resources };
}

const ownResources = (buckets: string[]) => buckets.flatMap((b) => [bucketArn(b), objectsArn(b)]);

/** A warehouse identity: its two buckets and nothing else; read-only drops every write. */
export function identityPolicy(buckets: string[], access: 'read' | 'write', assumableRole?: string): PolicyDocument {
  const statements: Array<Record<string, unknown>> = [
    { Sid: 'Buckets', Effect: 'Allow', Action: BUCKET_READ_ACTIONS, Resource: buckets.map(bucketArn) },
    { Sid: 'Objects', Effect: 'Allow', Action: access === 'write' ? OBJECT_WRITE_ACTIONS : OBJECT_READ_ACTIONS, Resource: buckets.map((b) => objectsArn(b)) },
    confinedTo(ownResources(buckets)),
    ...aclDenials(),
  ];
  if (assumableRole) statements.push({ Sid: 'Vend', Effect: 'Allow', Action: ['sts:AssumeRole'], Resource: [roleArn(assumableRole)] });
  return doc(...statements);
}

/** Who may assume a warehouse's role: its own identities. */
export function roleTrustPolicy(trustedUids: string[]): PolicyDocument {
  return doc({ Effect: 'Allow', Principal: { AWS: trustedUids.map(userArn) }, Action: ['sts:AssumeRole'] });
}

/**
 * The most a vended session can ever do: what the warehouse identity can.
 * With `sessionsIssuedAfter`, every session issued before that moment is
 * refused (RGW puts the session's `aws:TokenIssueTime` in the request's
 * context): a restored catalog's role takes its deletion time, so sessions
 * vended before the deletion stay refused after the restore.
 */
export function rolePermissionPolicy(buckets: string[], sessionsIssuedAfter?: Date | null): PolicyDocument {
  const policy = identityPolicy(buckets, 'write');
  if (sessionsIssuedAfter) {
    policy.Statement.push({
      Sid: 'NoEarlierSessions', Effect: 'Deny', Action: ['s3:*'], Resource: ['*'],
      Condition: { DateLessThan: { 'aws:TokenIssueTime': sessionsIssuedAfter.toISOString() } },
    });
  }
  return policy;
}

/**
 * Narrows a session to one object prefix of one bucket (a table's location).
 * The role's policy already refuses ACLs; the session says so too, so a
 * session never depends on the role's policy alone for it.
 */
export function sessionPolicy(bucket: string, prefix: string, access: 'read' | 'write'): PolicyDocument {
  return doc(
    { Effect: 'Allow', Action: ['s3:ListBucket'], Resource: [bucketArn(bucket)], Condition: { StringLike: { 's3:prefix': [`${prefix}*`] } } },
    { Effect: 'Allow', Action: ['s3:GetBucketLocation'], Resource: [bucketArn(bucket)] },
    { Effect: 'Allow', Action: access === 'write' ? OBJECT_WRITE_ACTIONS : OBJECT_READ_ACTIONS, Resource: [objectsArn(bucket, prefix)] },
    ...(access === 'write' ? aclDenials() : []),
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
      Action: ['s3:GetObject', 's3:GetObjectVersion', 's3:GetObjectAcl', 's3:DeleteObject', 's3:DeleteObjectVersion'],
      Resource: ['arn:aws:s3:::*'],
    },
    confinedTo([bucketArn(bucket), objectsArn(bucket, prefix)]),
    ...aclDenials(),
  ];
  if (list) {
    statements.push({ Sid: 'List', Effect: 'Allow', Action: ['s3:ListBucket'], Resource: [bucketArn(bucket)], Condition: { StringLike: { 's3:prefix': [`${prefix}*`] } } });
  }
  return doc(...statements);
}

export const PUBLIC_READ_SID = 'FloePublicRead';

/** Anonymous GET of every object (or of those under `prefix`, a key prefix ending in `/`); no listing, no writes. */
export function publicReadStatement(bucket: string, prefix = ''): Record<string, unknown> {
  return { Sid: PUBLIC_READ_SID, Effect: 'Allow', Principal: '*', Action: ['s3:GetObject'], Resource: [objectsArn(bucket, prefix)] };
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
