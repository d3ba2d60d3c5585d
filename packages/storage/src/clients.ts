import { Agent } from 'node:http';
import { IAMClient } from '@aws-sdk/client-iam';
import { S3Client } from '@aws-sdk/client-s3';
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
