import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

// Fetches an OAuth client metadata document (the client's `client_id` is its
// URL) from the open internet on a caller's behalf, so nothing a caller names
// may make identity reach inside the deployment: https only; every address
// the host resolves to — at each connection, after DNS, for the redirect
// target too — must be public unicast (request-filtering-agent refuses
// private, loopback, link-local and unspecified addresses); a redirect stays
// on the document's own host (at most 3); at most 64 KiB, 5 seconds.
//
// A development stack may name hosts (FLOE_OAUTH_METADATA_ALLOW_HOSTS, refused
// in production) fetched over http or https without the address guard, so its
// tests can serve documents from a local server. Nothing else passes.

export const METADATA_MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 5_000;
const MAX_REDIRECTS = 3;

/** Why a document could not be had; the description the caller is shown (400 invalid_client). */
export class MetadataRefused extends Error {}

// One agent each: connections are not kept (keepAlive off), so the guard runs on every fetch.
const guardedHttps = new RequestFilteringHttpsAgent({ keepAlive: false });
const guardedHttp = new RequestFilteringHttpAgent({ keepAlive: false });

/** Whether `allowHosts` names the URL's host (`host` for any port, `host:port` for one). */
export function hostAllowed(u: URL, allowHosts: readonly string[]): boolean {
  return allowHosts.includes(u.host.toLowerCase()) || allowHosts.includes(u.hostname.toLowerCase());
}

/** The document's bytes, read through the guard; throws MetadataRefused with the reason. */
export async function fetchMetadataDocument(url: string, allowHosts: readonly string[]): Promise<Buffer> {
  const first = new URL(url);
  let at = first;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const allowed = hostAllowed(at, allowHosts);
    if (at.protocol !== 'https:' && !(allowed && at.protocol === 'http:')) throw new MetadataRefused(`the client metadata address ${at.href} is not https`);
    const answer = await get(at, allowed);
    if (answer.redirect === null) return answer.body;
    const next = new URL(answer.redirect, at);
    if (next.host !== first.host || next.protocol !== first.protocol) {
      throw new MetadataRefused(`the client metadata document at ${first.href} redirects to another host (${next.host}); it must be served at its own address`);
    }
    at = next;
  }
  throw new MetadataRefused(`the client metadata document at ${url} redirects more than ${MAX_REDIRECTS} times`);
}

function get(u: URL, allowed: boolean): Promise<{ redirect: string | null; body: Buffer }> {
  const https_ = u.protocol === 'https:';
  const agent = allowed ? (https_ ? new https.Agent() : new http.Agent()) : (https_ ? guardedHttps : guardedHttp);
  return new Promise((resolve, reject) => {
    const req = (https_ ? https : http).get(u, { agent, timeout: TIMEOUT_MS, headers: { Accept: 'application/json' } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        return resolve({ redirect: res.headers.location, body: Buffer.alloc(0) });
      }
      if (status !== 200) {
        res.resume();
        return reject(new MetadataRefused(`the client metadata document at ${u.href} answered ${status}`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > METADATA_MAX_BYTES) {
          req.destroy(new MetadataRefused(`the client metadata document at ${u.href} exceeds ${METADATA_MAX_BYTES / 1024} KiB`));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => resolve({ redirect: null, body: Buffer.concat(chunks) }));
      res.on('error', (err) => reject(refusalOf(err, u)));
    });
    req.on('timeout', () => req.destroy(new MetadataRefused(`the client metadata document at ${u.href} did not answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => reject(refusalOf(err, u)));
  });
}

function refusalOf(err: Error, u: URL): MetadataRefused {
  if (err instanceof MetadataRefused) return err;
  // request-filtering-agent's refusal: "DNS lookup <address>(...) is not allowed. Because, ..."
  if (/is not allowed\. Because/.test(err.message)) {
    return new MetadataRefused(`the client metadata address ${u.host} names or resolves to a private, loopback or link-local address`);
  }
  return new MetadataRefused(`the client metadata document at ${u.href} could not be fetched (${(err as NodeJS.ErrnoException).code ?? err.message})`);
}
