import type { S3Client } from '@aws-sdk/client-s3';
import type { StoreCredentials } from './clients';
import type { LifecycleRule, LifecycleRuleView } from './lifecycle';
import type { ObjectClient } from './object-client';
import type { PolicyDocument } from './policies';
import type { HourTraffic } from './usage-log';

// Everything Floe asks of its object store. Every operation is idempotent, so
// a retried job does no harm: creating what exists returns it, removing what
// is gone succeeds and says so.

export interface IdentitySpec {
  uid: string;
  displayName: string;
  /** The only buckets it may touch. */
  buckets: string[];
  access: 'read' | 'write';
  /** The warehouse role it may assume to vend sessions. */
  assumableRole?: string;
}

export interface RoleSpec {
  roleName: string;
  trustedUids: string[];
  buckets: string[];
  /** Sessions issued before this are refused (a restored catalog's deletion time); null or absent: none. */
  sessionsIssuedAfter?: Date | null;
}

export interface IdentityKeys extends StoreCredentials {
  uid: string;
  /** False when the identity existed already (a retry). */
  created: boolean;
}

export interface UploaderSpec {
  uid: string;
  displayName: string;
  bucket: string;
  prefix: string;
  list: boolean;
}

export type StepResult = 'deleted' | 'absent';

export interface UploaderRevocation {
  access_keys: StepResult;
  user_policy: StepResult;
  user: StepResult;
  /** How many writes to the store's identity system the revocation made. */
  writes: number;
}

export interface BucketMeasure {
  bytes: number;
  objects: number;
  pages: number;
  page_cap: number;
  partial: boolean;
}

/** One page of a bucket listing. `delimiter` '' lists flat; `maxKeys` at most 1000. */
export interface ListQuery {
  prefix: string;
  delimiter: string;
  token?: string;
  maxKeys: number;
}

export interface ListedObject {
  key: string;
  size: number;
  /** Without S3's quotes. */
  etag: string;
  lastModified: Date | null;
}

export interface ListPage {
  objects: ListedObject[];
  /** Common prefixes, each ending in the delimiter. */
  folders: string[];
  /** The continuation token of the next page; null on the last. */
  nextToken: string | null;
}

/** A presigned GET: SigV4 query authentication, path-style, on `endpoint` (the address clients reach). */
export interface PresignSpec {
  as: StoreCredentials;
  endpoint: string;
  bucket: string;
  key: string;
  expiresInSeconds: number;
  /** Signed into the URL as `response-content-disposition`. */
  contentDisposition?: string;
}

export interface ProbeResult {
  ok: boolean;
  seconds: number;
  buckets: Array<{ bucket: string; ok: boolean; error?: string }>;
}

export interface StorageProvider {
  /** Creates the bucket if missing, owned by the service, and makes it ignore public ACLs (every call: an older bucket gets it too). */
  ensureBucket(bucket: string): Promise<{ created: boolean }>;
  /** Makes an existing bucket ignore public ACLs; 'absent' when there is no such bucket (never created here). */
  ignorePublicAcls(bucket: string): Promise<'set' | 'absent'>;
  /** Whether the bucket ignores public ACLs (its public access block). */
  publicAclsIgnored(bucket: string): Promise<boolean>;
  bucketExists(bucket: string): Promise<boolean>;
  /** Empties (objects, older versions and delete markers, unfinished uploads) and removes a bucket. */
  removeBucket(bucket: string): Promise<{ removed: boolean; objectsDeleted: number }>;

  ensureIdentity(spec: IdentitySpec): Promise<IdentityKeys>;
  /** Puts the current policy on an existing identity (a policy sweep); 'absent' when there is no such identity, which it never creates. */
  setIdentityPolicy(spec: Omit<IdentitySpec, 'displayName'>): Promise<'put' | 'absent'>;
  deleteIdentity(uid: string): Promise<{ user: StepResult; user_policy: StepResult }>;
  /**
   * Suspends an identity (every request with its keys refused at once, its
   * keys and policies kept) or lifts the suspension. Sessions it assumed
   * already are the role's: see revokeRoleSessions.
   */
  setIdentitySuspended(uid: string, suspended: boolean): Promise<'suspended' | 'active' | 'absent'>;
  /** The ids of every identity whose id starts with `prefix`. */
  listIdentities(prefix: string): Promise<string[]>;
  addAccessKey(uid: string): Promise<StoreCredentials>;
  deleteAccessKey(uid: string, accessKeyId: string): Promise<StepResult>;
  /** New key first, then every older key deleted. */
  rotateKeys(uid: string): Promise<{ key: StoreCredentials; retired: string[] }>;

  ensureRole(spec: RoleSpec): Promise<{ arn: string }>;
  deleteRole(roleName: string): Promise<StepResult>;
  /**
   * Takes the role's permissions away, so every session vended from it is
   * refused at once (the role stays: ensureRole gives them back).
   */
  revokeRoleSessions(roleName: string): Promise<StepResult>;
  /** A session (at most `durationSeconds`, 900 by default) narrowed to one object prefix. */
  assumeSession(spec: { roleArn: string; as: StoreCredentials; bucket: string; prefix: string; access: 'read' | 'write'; durationSeconds?: number }): Promise<Required<Pick<StoreCredentials, 'accessKeyId' | 'secretAccessKey' | 'sessionToken' | 'expiration'>>>;

  createUploader(spec: UploaderSpec): Promise<IdentityKeys & { policy: PolicyDocument }>;
  /** Puts the current policy on an existing uploader; 'absent' when it is gone (never created here). */
  setUploaderPolicy(spec: Omit<UploaderSpec, 'displayName'>): Promise<'put' | 'absent'>;
  revokeUploader(uid: string): Promise<UploaderRevocation>;

  /**
   * Anonymous read of the bucket's objects on or off; with `prefix` (a key prefix ending in `/`)
   * only the objects under it. Turning it on again with another prefix replaces the statement.
   */
  setPublicRead(bucket: string, on: boolean, prefix?: string): Promise<{ changed: boolean; policy: Record<string, unknown> | null }>;
  /** Hard quota in bytes; null removes it. */
  setBucketQuota(bucket: string, maxBytes: number | null): Promise<void>;
  getBucketQuota(bucket: string): Promise<{ enabled: boolean; maxBytes: number | null }>;
  /** Read-only flip: a quota at the bucket's current size, so reads work and the next write is refused. */
  freezeBucket(bucket: string): Promise<{ maxBytes: number }>;

  putLifecycle(bucket: string, rules: LifecycleRule[]): Promise<void>;
  getLifecycle(bucket: string): Promise<{ configured: boolean; rules: LifecycleRuleView[] }>;
  deleteLifecycle(bucket: string): Promise<{ hadRules: number }>;
  /** The lifecycle configuration XML as the store keeps it; null when there is none. */
  getLifecycleXml(bucket: string): Promise<string | null>;
  /** The bucket policy document; null when there is none. */
  getBucketPolicy(bucket: string): Promise<{ Statement: Array<Record<string, unknown>> } | null>;

  /** Deletes every object under a prefix, as `as` when given (a warehouse's own identity), else as the bucket owner; returns how many. */
  deletePrefix(bucket: string, prefix: string, as?: StoreCredentials): Promise<{ objectsDeleted: number }>;

  /** One listing page as `as` (a warehouse's read-only identity, say). */
  listObjects(bucket: string, q: ListQuery, as: StoreCredentials): Promise<ListPage>;
  /** Deletes these keys one by one as `as` (a tenant cannot use the multi-object delete on RGW); absent keys are no error. */
  deleteKeys(bucket: string, keys: string[], as: StoreCredentials): Promise<void>;
  /** A presigned GET URL; signing is local, nothing is asked of the store. */
  presignGet(spec: PresignSpec): Promise<string>;

  /** Lists up to `pageCap` pages (50 of 1,000 by default); beyond that `partial` and `bytes` is a lower bound. */
  measureByListing(bucket: string, pageCap?: number, pageSize?: number): Promise<BucketMeasure>;
  bucketStats(bucket: string): Promise<{ bytes: number; objects: number }>;
  /** One admin call per bucket (the sweep's measure): RGW's own counters of bytes and objects, never a listing, and the bucket's quota. */
  bucketReport(bucket: string): Promise<{ bytes: number; objects: number; quota: { enabled: boolean; maxBytes: number | null } }>;
  /** RGW's usage log of the buckets' owner from `since` on (one admin call; `bucket` narrows it): counters per bucket per UTC hour. */
  bucketTraffic(since: Date, bucket?: string): Promise<Map<string, HourTraffic[]>>;

  /** As the tenant: PUT then DELETE an empty object in each bucket. */
  probe(as: StoreCredentials, buckets: string[]): Promise<ProbeResult>;

  // Acting as a tenant, session or uploader in the S3 API (the hot paths).

  /** Whole-object GET, PUT and DELETE as `as`, without the SDK's per-request cost (metadata files, batches, data files). */
  objectsAs(as: StoreCredentials): ObjectClient;
  /** An S3 client as `as`, for what ObjectClient does not do (listing, streamed reads, batch deletes). */
  s3As(as: StoreCredentials): S3Client;
}

/**
 * The spec's storage probe of a warehouse, the one used at creation and by the
 * provisioning retries: as the warehouse's read/write identity, a PUT and
 * DELETE of an empty object in its table bucket and its blob bucket.
 */
export function probeWarehouse(
  storage: Pick<StorageProvider, 'probe'>, rw: StoreCredentials, w: { tableBucket: string; blobBucket: string },
): Promise<ProbeResult> {
  return storage.probe(rw, [w.tableBucket, w.blobBucket]);
}
