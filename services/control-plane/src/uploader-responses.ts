import type { WarehouseRecord, UploaderRecord } from '@floe/catalogs';
import { uploaderPolicy } from '@floe/storage';
import type { IamWrite } from './domain/uploaders/uploaders';
import { iso } from './responses';

// An uploader as the uploader routes answer it (spec: Resources, Uploader).
// The secret is in the creation answer only; everywhere else the recipes
// carry a placeholder for it.

export interface StoreAddress {
  /** The object store's public address ({s3_url}). */
  endpoint: string;
  region: string;
}

const SECRET_PLACEHOLDER = '<secret shown once at creation>';

export function uploaderResponse(
  store: StoreAddress, u: UploaderRecord, w: WarehouseRecord, extra: { secret?: string; iamWrites?: IamWrite[] } = {},
) {
  const facts = { ...store, bucket: w.blobBucket, prefix: u.prefix, accessKeyId: u.accessKeyId, secret: extra.secret ?? SECRET_PLACEHOLDER, list: u.list };
  return {
    uploader_id: u.id,
    warehouse_id: w.id,
    warehouse_name: w.tableBucket,
    name: u.name,
    prefix: u.prefix,
    list: u.list,
    iam_user: u.iamUser,
    access_key_id: u.accessKeyId,
    ...(extra.secret ? { secret_access_key: extra.secret } : {}),
    endpoint: store.endpoint,
    bucket: w.blobBucket,
    region: store.region,
    scope: `s3://${w.blobBucket}/${u.prefix}*`,
    policy: uploaderPolicy(w.blobBucket, u.prefix, u.list),
    iam_writes: extra.iamWrites ?? [],
    expires_at: iso(u.expiresAt),
    created_at: iso(u.createdAt),
    created_by: u.createdBy,
    status: u.status,
    revoked_at: iso(u.revokedAt),
    recipe: uploaderRecipe(facts),
  };
}

interface RecipeFacts extends StoreAddress {
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secret: string;
  list: boolean;
}

/** Ready-to-paste uploads with the key: Debian's or AWS's `aws` CLI, and boto3. Path-style addressing, as the store wants. */
export function uploaderRecipe(f: RecipeFacts) {
  const aws_cli = [
    `export AWS_ACCESS_KEY_ID='${f.accessKeyId}' AWS_SECRET_ACCESS_KEY='${f.secret}' AWS_DEFAULT_REGION='${f.region}'`,
    'aws configure set default.s3.addressing_style path',
    `aws --endpoint-url ${f.endpoint} s3 cp ./photo.jpg s3://${f.bucket}/${f.prefix}photo.jpg`,
    ...(f.list ? [`aws --endpoint-url ${f.endpoint} s3api list-objects-v2 --bucket ${f.bucket} --prefix '${f.prefix}'`] : []),
  ].join('\n');
  const python_boto3 = [
    'import boto3',
    'from botocore.config import Config',
    '',
    's3 = boto3.client(',
    '    "s3",',
    `    endpoint_url="${f.endpoint}",`,
    `    region_name="${f.region}",`,
    `    aws_access_key_id="${f.accessKeyId}",`,
    `    aws_secret_access_key="${f.secret}",`,
    '    config=Config(s3={"addressing_style": "path"}),',
    ')',
    `s3.upload_file("photo.jpg", "${f.bucket}", "${f.prefix}photo.jpg")  # multipart above 8 MB`,
    ...(f.list ? [`print(s3.list_objects_v2(Bucket="${f.bucket}", Prefix="${f.prefix}").get("Contents", []))`] : []),
  ].join('\n');
  return {
    aws_cli,
    python_boto3,
    curl_presign_note: `The key only writes. For a device without an S3 client, presign a PUT with it (boto3: s3.generate_presigned_url("put_object", Params={"Bucket": "${f.bucket}", "Key": "${f.prefix}photo.jpg"}, ExpiresIn=900)) and send the file with curl -T photo.jpg '<url>'. \`aws s3 presign\` makes GET links only, which this key cannot use.`,
  };
}
