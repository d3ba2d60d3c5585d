import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Agent } from 'node:http';
import { IAMClient } from '@aws-sdk/client-iam';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { STSClient } from '@aws-sdk/client-sts';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export interface StoreEndpoint {
  endpoint: string;
  region: string;
}

export interface StoreCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** One keep-alive pool to the store for every client of this process. */
export const keepAliveAgent = new Agent({ keepAlive: true, maxSockets: 256 });
const handler = () => new NodeHttpHandler({ httpAgent: keepAliveAgent, connectionTimeout: 3_000, requestTimeout: 30_000 });

/**
 * An S3 client for the store: path-style addressing, and checksums only where
 * S3 requires them (RGW Pacific does not understand the SDK's newer trailing
 * checksums on every upload).
 */
export function s3Client(ep: StoreEndpoint, credentials: StoreCredentials): S3Client {
  return new S3Client({
    endpoint: ep.endpoint,
    region: ep.region,
    forcePathStyle: true,
    credentials,
    requestHandler: handler(),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
  });
}

export function iamClient(ep: StoreEndpoint, credentials: StoreCredentials): IAMClient {
  return new IAMClient({ endpoint: ep.endpoint, region: ep.region, credentials, requestHandler: handler(), maxAttempts: 2 });
}

export function stsClient(ep: StoreEndpoint, credentials: StoreCredentials): STSClient {
  return new STSClient({ endpoint: ep.endpoint, region: ep.region, credentials, requestHandler: handler(), maxAttempts: 2 });
}

/** Uploads a local file as one object, streamed from disk (a data file is never held in memory). */
export async function putFile(s3: S3Client, bucket: string, key: string, localPath: string): Promise<void> {
  const { size } = await stat(localPath);
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: createReadStream(localPath), ContentLength: size }));
}
