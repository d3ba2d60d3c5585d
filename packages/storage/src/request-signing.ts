import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { StoreCredentials } from './clients';
import { NodeSha256 } from './node-sha256';

// Signing a request someone else sends (the Iceberg REST catalog's remote
// signing): SigV4 over the method, the URI exactly as it will be sent (its
// path already escaped, so not escaped again), its query and the headers the
// client will send, with the payload hash the client names in
// x-amz-content-sha256 (UNSIGNED-PAYLOAD when it names none). The answer is
// every header to send: the client's, plus Authorization and X-Amz-Date (and
// the session token for a temporary identity).

export interface RequestToSign {
  method: string;
  url: URL;
  /** Header names in any case; a repeated header's values joined with ', ' as they will be sent. */
  headers: Record<string, string>;
}

export async function signStoreRequest(region: string, as: StoreCredentials, r: RequestToSign): Promise<Record<string, string>> {
  const signer = new SignatureV4({ credentials: as, region, service: 's3', sha256: NodeSha256, uriEscapePath: false });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(r.headers)) headers[name.toLowerCase()] = value;
  headers.host = r.url.host;
  headers['x-amz-content-sha256'] ??= 'UNSIGNED-PAYLOAD';
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of r.url.searchParams) {
    const had = query[k];
    query[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
  }
  const signed = await signer.sign(new HttpRequest({
    method: r.method, protocol: r.url.protocol, hostname: r.url.hostname, port: r.url.port ? Number(r.url.port) : undefined,
    path: r.url.pathname, query, headers,
  }));
  return signed.headers;
}
