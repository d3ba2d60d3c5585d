import { randomBytes } from 'node:crypto';
import {
  CreateRoleCommand, DeleteRoleCommand, DeleteRolePolicyCommand, DeleteUserPolicyCommand, GetRoleCommand, GetUserPolicyCommand,
  ListUserPoliciesCommand,
  PutRolePolicyCommand, PutUserPolicyCommand, UpdateAssumeRolePolicyCommand, type IAMClient,
} from '@aws-sdk/client-iam';
import {
  AbortMultipartUploadCommand, CreateBucketCommand, DeleteBucketCommand, DeleteBucketLifecycleCommand,
  DeleteBucketPolicyCommand, DeleteObjectCommand, DeleteObjectsCommand, GetBucketLifecycleConfigurationCommand,
  GetBucketPolicyCommand, HeadBucketCommand, ListMultipartUploadsCommand, ListObjectsV2Command, ListObjectVersionsCommand,
  GetObjectCommand, GetPublicAccessBlockCommand, PutBucketLifecycleConfigurationCommand, PutBucketPolicyCommand, PutObjectCommand,
  PutPublicAccessBlockCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { AssumeRoleCommand } from '@aws-sdk/client-sts';
import { AdminOps } from './admin-ops';
import { ClientCache } from './client-cache';
import { ObjectClient } from './object-client';
import { iamClient, s3Client, stsClient, type StoreCredentials, type StoreEndpoint } from './clients';
import { StorageError, toStorageError } from './errors';
import { fromS3Rule, toS3Rule, type LifecycleRule } from './lifecycle';
import { trafficPerBucket, usageTime, type HourTraffic } from './usage-log';
import {
  compact, identityPolicy, PUBLIC_READ_SID, publicReadStatement, roleTrustPolicy, rolePermissionPolicy,
  sessionPolicy, uploaderPolicy,
} from './policies';
import type {
  BucketMeasure, IdentityKeys, IdentitySpec, ListPage, ListQuery, PresignSpec, ProbeResult, RoleSpec, StepResult, StorageProvider,
  UploaderRevocation, UploaderSpec,
} from './provider';

export interface RgwConfig extends StoreEndpoint {
  adminAccessKey: string;
  adminSecretKey: string;
  /** The RGW user that owns every bucket. */
  adminUid?: string;
}

interface RgwUser {
  user_id: string;
  max_buckets: number;
  suspended?: number;
  keys: Array<{ user: string; access_key: string; secret_key: string }>;
}

const POLICY_NAME = 'floe';
const UPLOADER_POLICY_NAME = 'floe-uploader';
const NO_BUCKET_CREATION = -1;

/** StorageProvider over Ceph RGW: S3/IAM/STS through the AWS SDK, users/keys/quotas/stats through the admin ops API. */
export class RgwStorage implements StorageProvider {
  readonly admin: AdminOps;
  readonly s3: S3Client;
  readonly iam: IAMClient;
  private readonly adminUid: string;
  private readonly clients = new ClientCache();

  constructor(private readonly cfg: RgwConfig) {
    const creds = { accessKeyId: cfg.adminAccessKey, secretAccessKey: cfg.adminSecretKey };
    this.admin = new AdminOps({ endpoint: cfg.endpoint, region: cfg.region, ...creds });
    this.s3 = s3Client(cfg, creds);
    this.iam = iamClient(cfg, creds);
    this.adminUid = cfg.adminUid ?? 'floe-admin';
  }

  /**
   * An S3 client acting with someone else's credentials (tenant, session,
   * uploader). Clients are kept per credential: building one costs about as
   * much CPU as the request it would send (the SDK resolves its whole config).
   */
  s3As(credentials: StoreCredentials): S3Client {
    return this.clients.get('s3', credentials, () => s3Client(this.cfg, credentials));
  }

  /** Whole-object GET/PUT acting with someone else's credentials, without the SDK's per-request cost (hot paths). */
  objectsAs(credentials: StoreCredentials): ObjectClient {
    return this.clients.get('objects', credentials, () => new ObjectClient(this.cfg, credentials));
  }

  // ---- buckets -------------------------------------------------------------

  async ensureBucket(bucket: string): Promise<{ created: boolean }> {
    const created = await this.createBucket(bucket);
    await this.ignorePublicAcls(bucket);
    return { created };
  }

  private async createBucket(bucket: string): Promise<boolean> {
    // RGW (like S3 in us-east-1) answers 200 to re-creating a bucket you own, so ask first.
    if (await this.bucketExists(bucket)) return false;
    try {
      await this.s3.send(new CreateBucketCommand({ Bucket: bucket }));
      return true;
    } catch (err) {
      const e = err as { name?: string };
      if (e.name === 'BucketAlreadyOwnedByYou') return false;
      if (e.name === 'BucketAlreadyExists') throw new StorageError('conflict', 'create bucket', `bucket ${bucket} belongs to someone else`, 409);
      throw toStorageError('create bucket', err);
    }
  }

  /**
   * The bucket's public access block (`ensureBucket` sets it on every call,
   * a policy sweep on older buckets): public ACLs (all users, any
   * authenticated user) are ignored, so no ACL ever makes an object public
   * — one set before this, or by a request a policy cannot see (policies.ts,
   * aclDenials). Only IgnorePublicAcls: RGW Pacific's BlockPublicAcls refuses
   * every PUT, ACL or not, and the two policy flags would refuse publishing
   * (POST …/public is a bucket policy).
   */
  async ignorePublicAcls(bucket: string): Promise<'set' | 'absent'> {
    try {
      await this.s3.send(new PutPublicAccessBlockCommand({
        Bucket: bucket,
        PublicAccessBlockConfiguration: { IgnorePublicAcls: true, BlockPublicAcls: false, BlockPublicPolicy: false, RestrictPublicBuckets: false },
      }));
      return 'set';
    } catch (err) {
      const se = toStorageError('ignore public ACLs', err);
      if (se.kind === 'not_found') return 'absent';
      throw se;
    }
  }

  async publicAclsIgnored(bucket: string): Promise<boolean> {
    try {
      const out = await this.s3.send(new GetPublicAccessBlockCommand({ Bucket: bucket }));
      return out.PublicAccessBlockConfiguration?.IgnorePublicAcls === true;
    } catch (err) {
      const se = toStorageError('read public access block', err);
      if (se.kind === 'not_found' && se.storeCode !== 'NoSuchBucket') return false;
      throw se;
    }
  }

  async bucketExists(bucket: string): Promise<boolean> {
    try {
      await this.s3.send(new HeadBucketCommand({ Bucket: bucket }));
      return true;
    } catch (err) {
      const se = toStorageError('head bucket', err);
      if (se.kind === 'not_found') return false;
      throw se;
    }
  }

  async deletePrefix(bucket: string, prefix: string, as?: StoreCredentials): Promise<{ objectsDeleted: number }> {
    const s3 = as ? this.s3As(as) : this.s3;
    let objectsDeleted = 0;
    try {
      for (;;) {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1000 }));
        const keys = (page.Contents ?? []).map((o) => o.Key!);
        if (keys.length === 0) break;
        if (as) await this.deleteKeys(bucket, keys, as);
        else {
          const out = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }));
          // A refused key would be listed again forever: stop with the store's answer instead.
          if (out.Errors?.length) throw new StorageError('denied', 'delete prefix', `${out.Errors.length} objects were not deleted: ${out.Errors[0].Code ?? 'refused'}`, 403, out.Errors[0].Code);
        }
        objectsDeleted += keys.length;
      }
    } catch (err) {
      throw toStorageError('delete prefix', err);
    }
    return { objectsDeleted };
  }

  /**
   * One DELETE per key, a few at a time: RGW (Pacific) refuses the
   * multi-object delete to a user confined by a user policy even where each
   * single delete is allowed, so a tenant identity deletes key by key.
   */
  async deleteKeys(bucket: string, keys: string[], as: StoreCredentials): Promise<void> {
    const s3 = this.s3As(as);
    let next = 0;
    const lane = async () => {
      while (next < keys.length) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: keys[next++] }));
    };
    try {
      await Promise.all(Array.from({ length: Math.min(16, keys.length) }, lane));
    } catch (err) {
      throw toStorageError('delete objects', err);
    }
  }

  async listObjects(bucket: string, q: ListQuery, as: StoreCredentials): Promise<ListPage> {
    try {
      const page = await this.s3As(as).send(new ListObjectsV2Command({
        Bucket: bucket, Prefix: q.prefix || undefined, Delimiter: q.delimiter || undefined, ContinuationToken: q.token, MaxKeys: q.maxKeys,
      }));
      return {
        objects: (page.Contents ?? []).map((o) => ({
          key: o.Key!, size: o.Size ?? 0, etag: (o.ETag ?? '').replace(/^"|"$/g, ''), lastModified: o.LastModified ?? null,
        })),
        folders: (page.CommonPrefixes ?? []).map((p) => p.Prefix!),
        nextToken: page.IsTruncated ? (page.NextContinuationToken ?? null) : null,
      };
    } catch (err) {
      throw toStorageError('list objects', err);
    }
  }

  async presignGet(spec: PresignSpec): Promise<string> {
    // Clients per address and credential: the address is part of what is signed (host).
    const client = this.clients.get(`presign ${spec.endpoint}`, spec.as, () => s3Client({ endpoint: spec.endpoint, region: this.cfg.region }, spec.as));
    return getSignedUrl(client, new GetObjectCommand({
      Bucket: spec.bucket, Key: spec.key, ResponseContentDisposition: spec.contentDisposition,
    }), { expiresIn: spec.expiresInSeconds });
  }

  async removeBucket(bucket: string): Promise<{ removed: boolean; objectsDeleted: number }> {
    if (!(await this.bucketExists(bucket))) return { removed: false, objectsDeleted: 0 };
    let objectsDeleted = 0;
    try {
      objectsDeleted = (await this.deletePrefix(bucket, '')).objectsDeleted;
      objectsDeleted += await this.deleteVersions(bucket);
      for (;;) {
        const uploads = await this.s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
        for (const u of uploads.Uploads ?? []) {
          await this.s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: u.Key!, UploadId: u.UploadId! }));
        }
        if (!uploads.IsTruncated) break;
      }
      await this.s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    } catch (err) {
      const se = toStorageError('remove bucket', err);
      if (se.kind === 'not_found') return { removed: false, objectsDeleted };
      throw se;
    }
    return { removed: true, objectsDeleted };
  }

  /** Older versions and delete markers (a bucket that ever had versioning on keeps them after its objects go). */
  private async deleteVersions(bucket: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const page = await this.s3.send(new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 1000 }));
      const all = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((v) => ({ Key: v.Key!, VersionId: v.VersionId }));
      if (all.length === 0) return deleted;
      const out = await this.s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: all, Quiet: true } }));
      if (out.Errors?.length) throw new StorageError('denied', 'delete versions', `${out.Errors.length} versions were not deleted: ${out.Errors[0].Code ?? 'refused'}`, 403, out.Errors[0].Code);
      deleted += (page.Versions ?? []).length;
    }
  }

  // ---- identities ----------------------------------------------------------

  private async getUser(uid: string): Promise<RgwUser | null> {
    return this.admin.call<RgwUser>('GET', 'user', { uid }, 'get identity');
  }

  /** A user that owns nothing and can create nothing; exists with one key afterwards. */
  private async ensureUser(uid: string, displayName: string): Promise<{ user: RgwUser; created: boolean }> {
    const existing = await this.getUser(uid);
    if (!existing) {
      const user = await this.admin.call<RgwUser>('PUT', 'user', {
        uid, 'display-name': displayName, 'max-buckets': NO_BUCKET_CREATION, 'key-type': 's3', 'generate-key': true,
      }, 'create identity');
      return { user: user!, created: true };
    }
    if (existing.max_buckets !== NO_BUCKET_CREATION) {
      await this.admin.call('POST', 'user', { uid, 'max-buckets': NO_BUCKET_CREATION }, 'confine identity');
    }
    // The caller puts the identity's policy right after, so the policy loss of a key change does not matter here.
    if (existing.keys.length === 0) return { user: (await this.addKeyRaw(uid)).user, created: false };
    return { user: existing, created: false };
  }

  async ensureIdentity(spec: IdentitySpec): Promise<IdentityKeys> {
    const { user, created } = await this.ensureUser(spec.uid, spec.displayName);
    await this.putUserPolicy(spec.uid, POLICY_NAME, compact(identityPolicy(spec.buckets, spec.access, spec.assumableRole)));
    const key = user.keys.find((k) => k.user === spec.uid) ?? user.keys[0];
    return { uid: spec.uid, accessKeyId: key.access_key, secretAccessKey: key.secret_key, created };
  }

  async setIdentityPolicy(spec: Omit<IdentitySpec, 'displayName'>): Promise<'put' | 'absent'> {
    return this.putExistingUserPolicy(spec.uid, POLICY_NAME, compact(identityPolicy(spec.buckets, spec.access, spec.assumableRole)));
  }

  /** A policy put only on a user that exists: one removed meanwhile (a revoked uploader) is 'absent', never made again. */
  private async putExistingUserPolicy(uid: string, name: string, document: string): Promise<'put' | 'absent'> {
    if (!(await this.getUser(uid))) return 'absent';
    try {
      await this.putUserPolicy(uid, name, document);
      return 'put';
    } catch (err) {
      if (toStorageError('set identity policy', err).kind === 'not_found') return 'absent';
      throw err;
    }
  }

  async deleteIdentity(uid: string): Promise<{ user: StepResult; user_policy: StepResult }> {
    const user_policy = await this.deleteUserPolicy(uid, POLICY_NAME);
    const user = await this.deleteUser(uid);
    return { user, user_policy };
  }

  async setIdentitySuspended(uid: string, suspended: boolean): Promise<'suspended' | 'active' | 'absent'> {
    const user = await this.getUser(uid);
    if (!user) return 'absent';
    if (Boolean(user.suspended) !== suspended) {
      // Suspending is an admin-API change of the user, which drops its IAM policies: kept, so a reinstated identity (a restored catalog) reaches its buckets again.
      const res = await this.preservingPolicies(uid, () => this.admin.call('POST', 'user', { uid, suspended }, suspended ? 'suspend identity' : 'reinstate identity'));
      if (res === null) return 'absent';
    }
    return suspended ? 'suspended' : 'active';
  }

  async listIdentities(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let marker: string | undefined;
    do {
      const page = await this.admin.call<{ keys?: string[]; truncated?: boolean; marker?: string }>(
        'GET', 'metadata/user', { 'max-entries': 1000, ...(marker ? { marker } : {}) }, 'list identities',
      );
      out.push(...(page?.keys ?? []).filter((uid) => uid.startsWith(prefix)));
      marker = page?.truncated ? page.marker : undefined;
    } while (marker);
    return out;
  }

  /**
   * RGW Pacific drops a user's IAM policies whenever the admin API changes
   * the user: adds or removes one of its keys, suspends or reinstates it.
   * Such changes therefore read the policies first and put them back after,
   * so an identity never loses its confinement (without them it could reach
   * nothing, which is safe, but useless).
   */
  private async preservingPolicies<T>(uid: string, change: () => Promise<T>): Promise<T> {
    const policies = await this.userPolicies(uid);
    const result = await change();
    for (const [name, document] of policies) await this.putUserPolicy(uid, name, document);
    return result;
  }

  private async userPolicies(uid: string): Promise<Array<[string, string]>> {
    try {
      const names = (await this.iam.send(new ListUserPoliciesCommand({ UserName: uid }))).PolicyNames ?? [];
      const out: Array<[string, string]> = [];
      for (const name of names) {
        const doc = (await this.iam.send(new GetUserPolicyCommand({ UserName: uid, PolicyName: name }))).PolicyDocument;
        if (doc) out.push([name, decodeURIComponent(doc)]);
      }
      return out;
    } catch (err) {
      const se = toStorageError('read identity policies', err);
      if (se.kind === 'not_found') return [];
      throw se;
    }
  }

  private async addKeyRaw(uid: string): Promise<{ user: RgwUser; key: StoreCredentials }> {
    const before = new Set(((await this.getUser(uid))?.keys ?? []).map((k) => k.access_key));
    const keys = await this.admin.call<RgwUser['keys']>('PUT', 'user', { key: '', uid, 'key-type': 's3', 'generate-key': true }, 'create access key');
    const fresh = (keys ?? []).find((k) => !before.has(k.access_key));
    if (!fresh) throw new StorageError('invalid', 'create access key', 'the store returned no new key');
    const user = (await this.getUser(uid))!;
    return { user, key: { accessKeyId: fresh.access_key, secretAccessKey: fresh.secret_key } };
  }

  private async deleteKeyRaw(uid: string, accessKeyId: string): Promise<StepResult> {
    const res = await this.admin.call('DELETE', 'user', { key: '', uid, 'access-key': accessKeyId }, 'delete access key');
    return res === null ? 'absent' : 'deleted';
  }

  async addAccessKey(uid: string): Promise<StoreCredentials> {
    return this.preservingPolicies(uid, async () => (await this.addKeyRaw(uid)).key);
  }

  async deleteAccessKey(uid: string, accessKeyId: string): Promise<StepResult> {
    return this.preservingPolicies(uid, () => this.deleteKeyRaw(uid, accessKeyId));
  }

  async rotateKeys(uid: string): Promise<{ key: StoreCredentials; retired: string[] }> {
    return this.preservingPolicies(uid, async () => {
      const { user, key } = await this.addKeyRaw(uid);
      const retired = user.keys.map((k) => k.access_key).filter((a) => a !== key.accessKeyId);
      for (const a of retired) await this.deleteKeyRaw(uid, a);
      return { key, retired };
    });
  }

  private async putUserPolicy(uid: string, name: string, document: string): Promise<void> {
    try {
      await this.iam.send(new PutUserPolicyCommand({ UserName: uid, PolicyName: name, PolicyDocument: document }));
    } catch (err) {
      throw toStorageError('set identity policy', err);
    }
  }

  private async deleteUserPolicy(uid: string, name: string): Promise<StepResult> {
    try {
      await this.iam.send(new DeleteUserPolicyCommand({ UserName: uid, PolicyName: name }));
      return 'deleted';
    } catch (err) {
      const se = toStorageError('delete identity policy', err);
      if (se.kind === 'not_found') return 'absent';
      throw se;
    }
  }

  private async deleteUser(uid: string): Promise<StepResult> {
    const res = await this.admin.call('DELETE', 'user', { uid, 'purge-data': false }, 'delete identity');
    return res === null ? 'absent' : 'deleted';
  }

  // ---- roles and sessions --------------------------------------------------

  async ensureRole(spec: RoleSpec): Promise<{ arn: string }> {
    const trust = compact(roleTrustPolicy(spec.trustedUids));
    let arn: string | undefined;
    try {
      const created = await this.iam.send(new CreateRoleCommand({ RoleName: spec.roleName, AssumeRolePolicyDocument: trust, MaxSessionDuration: 3600 }));
      arn = created.Role?.Arn;
    } catch (err) {
      const se = toStorageError('create role', err);
      if (se.kind !== 'conflict') throw se;
      await this.iam.send(new UpdateAssumeRolePolicyCommand({ RoleName: spec.roleName, PolicyDocument: trust })).catch((e) => {
        throw toStorageError('update role trust', e);
      });
    }
    try {
      await this.iam.send(new PutRolePolicyCommand({ RoleName: spec.roleName, PolicyName: POLICY_NAME, PolicyDocument: compact(rolePermissionPolicy(spec.buckets, spec.sessionsIssuedAfter)) }));
      arn ??= (await this.iam.send(new GetRoleCommand({ RoleName: spec.roleName }))).Role?.Arn;
    } catch (err) {
      throw toStorageError('set role policy', err);
    }
    if (!arn) throw new StorageError('invalid', 'create role', 'the store returned no role ARN');
    return { arn };
  }

  async deleteRole(roleName: string): Promise<StepResult> {
    await this.revokeRoleSessions(roleName);
    try {
      await this.iam.send(new DeleteRoleCommand({ RoleName: roleName }));
      return 'deleted';
    } catch (err) {
      const se = toStorageError('delete role', err);
      if (se.kind === 'not_found') return 'absent';
      throw se;
    }
  }

  async revokeRoleSessions(roleName: string): Promise<StepResult> {
    try {
      await this.iam.send(new DeleteRolePolicyCommand({ RoleName: roleName, PolicyName: POLICY_NAME }));
      return 'deleted';
    } catch (err) {
      const se = toStorageError('revoke role sessions', err);
      if (se.kind === 'not_found') return 'absent';
      throw se;
    }
  }

  async assumeSession(spec: { roleArn: string; as: StoreCredentials; bucket: string; prefix: string; access: 'read' | 'write'; durationSeconds?: number }) {
    try {
      const out = await stsClient(this.cfg, spec.as).send(new AssumeRoleCommand({
        RoleArn: spec.roleArn,
        RoleSessionName: `floe-${randomBytes(6).toString('hex')}`,
        DurationSeconds: spec.durationSeconds ?? 900,
        Policy: compact(sessionPolicy(spec.bucket, spec.prefix, spec.access)),
      }));
      const c = out.Credentials;
      if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration) {
        throw new StorageError('invalid', 'vend session', 'the store returned no credentials');
      }
      return { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, expiration: new Date(c.Expiration) };
    } catch (err) {
      throw toStorageError('vend session', err);
    }
  }

  // ---- uploaders -----------------------------------------------------------

  async createUploader(spec: UploaderSpec) {
    const { user, created } = await this.ensureUser(spec.uid, spec.displayName);
    const policy = uploaderPolicy(spec.bucket, spec.prefix, spec.list);
    await this.putUserPolicy(spec.uid, UPLOADER_POLICY_NAME, compact(policy));
    const key = user.keys[0];
    return { uid: spec.uid, accessKeyId: key.access_key, secretAccessKey: key.secret_key, created, policy };
  }

  async setUploaderPolicy(spec: Omit<UploaderSpec, 'displayName'>): Promise<'put' | 'absent'> {
    return this.putExistingUserPolicy(spec.uid, UPLOADER_POLICY_NAME, compact(uploaderPolicy(spec.bucket, spec.prefix, spec.list)));
  }

  /** Key first (the credential stops at once), then the policy, then the identity. */
  async revokeUploader(uid: string): Promise<UploaderRevocation> {
    const user = await this.getUser(uid);
    let writes = 0;
    let access_keys: StepResult = 'absent';
    // Raw deletes: the policy is removed next anyway (and RGW drops it with the key).
    for (const k of user?.keys ?? []) {
      if ((await this.deleteKeyRaw(uid, k.access_key)) === 'deleted') access_keys = 'deleted';
      writes += 1;
    }
    const user_policy = user ? await this.deleteUserPolicy(uid, UPLOADER_POLICY_NAME) : 'absent';
    if (user) writes += 1;
    const userStep = user ? await this.deleteUser(uid) : 'absent';
    if (user) writes += 1;
    return { access_keys, user_policy, user: userStep, writes };
  }

  // ---- public read, quotas -------------------------------------------------

  async setPublicRead(bucket: string, on: boolean, prefix = ''): Promise<{ changed: boolean; policy: Record<string, unknown> | null }> {
    const current = await this.getBucketPolicy(bucket);
    const others = (current?.Statement ?? []).filter((s) => s.Sid !== PUBLIC_READ_SID);
    const was = (current?.Statement ?? []).find((s) => s.Sid === PUBLIC_READ_SID);
    const wanted = on ? publicReadStatement(bucket, prefix) : undefined;
    const statements = wanted ? [...others, wanted] : others;
    const policy = statements.length ? { Version: '2012-10-17', Statement: statements } : null;
    // The same statement (the store may answer a lone resource as a string): nothing to write.
    if (!was && !wanted) return { changed: false, policy };
    if (was && wanted && [was.Resource].flat().join() === [wanted.Resource].flat().join()) return { changed: false, policy };
    try {
      if (policy) await this.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: compact(policy) }));
      else await this.s3.send(new DeleteBucketPolicyCommand({ Bucket: bucket }));
    } catch (err) {
      throw toStorageError(on ? 'publish bucket' : 'unpublish bucket', err);
    }
    return { changed: true, policy };
  }

  async getBucketPolicy(bucket: string): Promise<{ Statement: Array<Record<string, unknown>> } | null> {
    try {
      const out = await this.s3.send(new GetBucketPolicyCommand({ Bucket: bucket }));
      return out.Policy ? JSON.parse(out.Policy) : null;
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchBucketPolicy') return null;
      const se = toStorageError('read bucket policy', err);
      if (se.kind === 'not_found' && se.storeCode === 'NoSuchBucketPolicy') return null;
      throw se;
    }
  }

  async setBucketQuota(bucket: string, maxBytes: number | null): Promise<void> {
    await this.admin.call('PUT', 'bucket', {
      quota: '',
      uid: this.adminUid,
      bucket,
      'max-size-kb': maxBytes === null ? -1 : Math.floor(maxBytes / 1024),
      'max-objects': -1,
      enabled: maxBytes !== null,
    }, 'set bucket quota');
  }

  async getBucketQuota(bucket: string): Promise<{ enabled: boolean; maxBytes: number | null }> {
    return (await this.bucketReport(bucket)).quota;
  }

  async freezeBucket(bucket: string): Promise<{ maxBytes: number }> {
    const { bytes } = await this.bucketStats(bucket);
    await this.setBucketQuota(bucket, bytes);
    return { maxBytes: Math.floor(bytes / 1024) * 1024 };
  }

  // ---- lifecycle -----------------------------------------------------------

  async putLifecycle(bucket: string, rules: LifecycleRule[]): Promise<void> {
    try {
      await this.s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: bucket, LifecycleConfiguration: { Rules: rules.map(toS3Rule) } }));
    } catch (err) {
      throw toStorageError('set lifecycle', err);
    }
  }

  async getLifecycle(bucket: string) {
    try {
      const out = await this.s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }));
      return { configured: true, rules: (out.Rules ?? []).map(fromS3Rule) };
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchLifecycleConfiguration') return { configured: false, rules: [] };
      const se = toStorageError('read lifecycle', err);
      if (se.kind === 'not_found' && se.storeCode === 'NoSuchLifecycleConfiguration') return { configured: false, rules: [] };
      throw se;
    }
  }

  async getLifecycleXml(bucket: string): Promise<string | null> {
    return this.objectsAs({ accessKeyId: this.cfg.adminAccessKey, secretAccessKey: this.cfg.adminSecretKey }).getBucketDocument(bucket, 'lifecycle');
  }

  async deleteLifecycle(bucket: string): Promise<{ hadRules: number }> {
    const { rules } = await this.getLifecycle(bucket);
    try {
      await this.s3.send(new DeleteBucketLifecycleCommand({ Bucket: bucket }));
    } catch (err) {
      throw toStorageError('delete lifecycle', err);
    }
    return { hadRules: rules.length };
  }

  // ---- measuring -----------------------------------------------------------

  async measureByListing(bucket: string, pageCap = 50, pageSize = 1000): Promise<BucketMeasure> {
    let bytes = 0;
    let objects = 0;
    let pages = 0;
    let token: string | undefined;
    try {
      do {
        const page = await this.s3.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: pageSize, ContinuationToken: token }));
        pages += 1;
        for (const o of page.Contents ?? []) {
          bytes += o.Size ?? 0;
          objects += 1;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token && pages < pageCap);
    } catch (err) {
      throw toStorageError('measure bucket', err);
    }
    return { bytes, objects, pages, page_cap: pageCap, partial: token !== undefined };
  }

  async bucketStats(bucket: string): Promise<{ bytes: number; objects: number }> {
    const { bytes, objects } = await this.bucketReport(bucket);
    return { bytes, objects };
  }

  async bucketReport(bucket: string): Promise<{ bytes: number; objects: number; quota: { enabled: boolean; maxBytes: number | null } }> {
    const info = await this.admin.call<{ usage?: Record<string, { size?: number; num_objects?: number }>; bucket_quota?: { enabled?: boolean; max_size?: number } }>(
      'GET', 'bucket', { stats: true, bucket }, 'bucket stats',
    );
    if (!info) throw new StorageError('not_found', 'bucket stats', `no bucket ${bucket}`, 404);
    const main = info.usage?.['rgw.main'];
    const q = info.bucket_quota;
    const quota = q?.enabled && (q.max_size ?? -1) >= 0 ? { enabled: true, maxBytes: q.max_size! } : { enabled: Boolean(q?.enabled), maxBytes: null };
    return { bytes: main?.size ?? 0, objects: main?.num_objects ?? 0, quota };
  }

  async bucketTraffic(since: Date, bucket?: string): Promise<Map<string, HourTraffic[]>> {
    const answer = await this.admin.call<Parameters<typeof trafficPerBucket>[0]>('GET', 'usage', {
      uid: this.adminUid, start: usageTime(since), 'show-entries': true, 'show-summary': false, ...(bucket ? { bucket } : {}),
    }, 'read usage log');
    return trafficPerBucket(answer);
  }

  // ---- probe ---------------------------------------------------------------

  async probe(as: StoreCredentials, buckets: string[]): Promise<ProbeResult> {
    const started = Date.now();
    const client = this.s3As(as);
    const results: ProbeResult['buckets'] = [];
    for (const bucket of buckets) {
      const Key = `.floe-probe/${randomBytes(8).toString('hex')}`;
      try {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: '' }));
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
        results.push({ bucket, ok: true });
      } catch (err) {
        results.push({ bucket, ok: false, error: toStorageError('probe', err).kind });
      }
    }
    return { ok: results.every((r) => r.ok), seconds: (Date.now() - started) / 1000, buckets: results };
  }
}

/** The deployment's store as its admin user, from packages/config's `s3` block; fails loudly without the key pair. */
export function deploymentStorage(s3: { endpoint: string; region: string; adminAccessKey?: string; adminSecretKey?: string }): RgwStorage {
  if (!s3.adminAccessKey || !s3.adminSecretKey) throw new Error('FLOE_S3_ADMIN_ACCESS_KEY and FLOE_S3_ADMIN_SECRET_KEY are required');
  return new RgwStorage({ endpoint: s3.endpoint, region: s3.region, adminAccessKey: s3.adminAccessKey, adminSecretKey: s3.adminSecretKey });
}
