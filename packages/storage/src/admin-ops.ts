import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash } from 'node:crypto';
import { StorageError, toStorageError } from './errors';

// The RGW admin ops REST API (/admin/...), SigV4-signed as the service's
// admin user. Users, keys, quotas and bucket stats live here; S3, IAM and STS
// go through the AWS SDK. Parameters travel in the query string: RGW answers
// 501 to JSON bodies on these routes.

export interface AdminOpsOptions {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean>;

export class AdminOps {
  private readonly signer: SignatureV4;
  private readonly url: URL;

  constructor(private readonly o: AdminOpsOptions) {
    this.url = new URL(o.endpoint);
    this.signer = new SignatureV4({
      credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey },
      region: o.region,
      service: 's3',
      sha256: Sha256,
    });
  }

  /** Returns the parsed JSON body, or null on 404 (absent user, key, bucket). */
  async call<T = unknown>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, query: Query, operation: string): Promise<T | null> {
    const q: Record<string, string> = {};
    for (const [k, v] of Object.entries(query)) q[k] = String(v);
    const emptyHash = createHash('sha256').update('').digest('hex');
    const request = new HttpRequest({
      method,
      protocol: this.url.protocol,
      hostname: this.url.hostname,
      port: this.url.port ? Number(this.url.port) : undefined,
      path: `/admin/${path}`,
      query: q,
      headers: { host: this.url.host, 'x-amz-content-sha256': emptyHash },
    });
    const signed = await this.signer.sign(request);
    const qs = new URLSearchParams(q).toString().replace(/=(&|$)/g, '$1');
    let res: Response;
    try {
      res = await fetch(`${this.url.origin}/admin/${path}${qs ? `?${qs}` : ''}`, {
        method,
        headers: signed.headers,
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 15_000),
      });
    } catch (err) {
      throw toStorageError(operation, err);
    }
    const text = await res.text();
    if (res.status === 404) return null;
    if (!res.ok) {
      const code = /"Code"\s*:\s*"([^"]+)"/.exec(text)?.[1];
      throw toStorageError(operation, { message: code ?? `HTTP ${res.status}`, Code: code, $metadata: { httpStatusCode: res.status } });
    }
    if (!text) return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new StorageError('invalid', operation, 'unreadable answer from the admin API', res.status);
    }
  }
}
