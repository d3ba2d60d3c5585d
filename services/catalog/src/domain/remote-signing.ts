import { signStoreRequest, type StoreCredentials } from '@floe/storage';
import { badRequest, forbidden } from '../errors';
import { keyPrefixOf, tableBucketRoot } from '../locations';

// Remote signing (the REST document's signRequest): an engine holding no
// storage credential sends the request it is about to make to the store, and
// the catalog signs it as the warehouse's own identity — read-only for the
// read-only credential — if, and only if, it is a request this table may
// make: to this deployment's store, path-style, in the warehouse's table
// bucket, on an object under the table's own location (or a listing of a
// prefix under it), with a method the credential allows and none of the
// bucket- or account-wide operations (policies, ACLs, lifecycle, batch
// deletes). Everything else is refused in the Iceberg error model, before
// anything is signed. The signature is SigV4 over exactly that request, so
// it cannot be reused for another object, method or query.

const METHODS = new Set(['PUT', 'GET', 'HEAD', 'POST', 'DELETE', 'PATCH', 'OPTIONS']);
const READS = new Set(['GET', 'HEAD']);
/** Query parameters an object request may carry: reads of a part or version, and the multipart upload's steps. */
const OBJECT_QUERY = new Set(['partNumber', 'versionId', 'uploadId', 'uploads', 'x-id']);
/** The query of a listing (ListObjectsV2, ListObjects). */
const LIST_QUERY = new Set(['list-type', 'prefix', 'delimiter', 'continuation-token', 'start-after', 'max-keys', 'encoding-type', 'fetch-owner', 'marker', 'x-id']);

/** Headers the signing writes: a caller's own are dropped. */
const SUPPLIED = new Set(['authorization', 'x-amz-date', 'x-amz-security-token', 'host']);

export interface SignRequest {
  region: string;
  uri: string;
  method: string;
  headers: Record<string, string[]>;
}

/** The RemoteSignRequest body; 400 naming the field for each wrong one. */
export function parseSignRequest(body: unknown): SignRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('Invalid sign request: the body is a JSON object');
  const b = body as Record<string, unknown>;
  for (const key of ['region', 'uri', 'method'] as const) {
    if (typeof b[key] !== 'string' || !b[key]) throw badRequest(`Invalid sign request: ${key} is required (a string)`);
  }
  if (!METHODS.has(b.method as string)) throw badRequest(`Invalid sign request: method must be one of ${[...METHODS].join(', ')}`);
  const h = b.headers;
  if (typeof h !== 'object' || h === null || Array.isArray(h) || Object.values(h).some((v) => !Array.isArray(v) || v.some((x) => typeof x !== 'string'))) {
    throw badRequest('Invalid sign request: headers is required, a map of header names to arrays of strings');
  }
  if (b.provider !== undefined && b.provider !== 's3') throw badRequest(`Invalid sign request: this catalog signs for provider s3 only, not ${JSON.stringify(b.provider)}`);
  if (b.properties !== undefined && (typeof b.properties !== 'object' || b.properties === null || Array.isArray(b.properties))) {
    throw badRequest('Invalid sign request: properties must be a map of strings');
  }
  return { region: b.region as string, uri: b.uri as string, method: b.method as string, headers: h as Record<string, string[]> };
}

export interface SigningScope {
  /** The deployment's store, as engines reach it (FLOE_S3_URL), and its region. */
  storeUrl: string;
  region: string;
  tableBucket: string;
  tableLocation: string;
  access: 'read' | 'write';
}

/** The request as a URL, once it is known to be one this table may make; 403 (or 400) saying why not. */
export function signableRequest(r: SignRequest, s: SigningScope): URL {
  if (r.region !== s.region) throw badRequest(`Invalid sign request: this catalog's store is in region ${s.region}, not ${r.region}`);
  if (s.access === 'read' && !READS.has(r.method)) throw forbidden(`The read-only credential has only GET and HEAD signed, not ${r.method}`);
  let url: URL;
  try {
    url = new URL(r.uri);
  } catch {
    throw badRequest('Invalid sign request: uri is not an absolute URI');
  }
  const store = new URL(s.storeUrl);
  if (url.origin !== store.origin) throw forbidden(`Only requests to this catalog's object store (${store.origin}) are signed`);
  if (url.username || url.password || url.hash) throw forbidden('A request with credentials or a fragment in its URI is not signed');
  const parts = url.pathname.split('/');
  const bucket = decodeURIComponent(parts[1] ?? '');
  if (bucket !== s.tableBucket) throw forbidden(`Only requests to the table's own bucket (${s.tableBucket}, path-style) are signed`);
  let key: string;
  try {
    key = parts.slice(2).map(decodeURIComponent).join('/');
  } catch {
    throw badRequest('Invalid sign request: the object key is not valid percent-encoding');
  }
  const prefix = keyPrefixOf(s.tableLocation, s.tableBucket);
  const query = [...url.searchParams.keys()];
  if (parts.length <= 2 || key === '') {
    // A bucket-level request: only a listing of a prefix under the table, never policies, ACLs or a batch delete.
    if (r.method !== 'GET' || query.some((q) => !LIST_QUERY.has(q))) throw forbidden('Only listings of the table\'s own prefix are signed on its bucket');
    const listed = url.searchParams.get('prefix') ?? '';
    if (!listed.startsWith(prefix)) throw forbidden(`A listing is signed only under the table's location (${tableBucketRoot(s.tableBucket)}${prefix})`);
    return url;
  }
  if (!key.startsWith(prefix) || key.split('/').some((seg) => seg === '..' || seg === '.')) {
    throw forbidden(`Only objects under the table's location (${s.tableLocation}) are signed, not ${tableBucketRoot(s.tableBucket)}${key}`);
  }
  if (r.method === 'PATCH' || r.method === 'OPTIONS') throw forbidden(`${r.method} is not signed`);
  const unknown = query.filter((q) => !OBJECT_QUERY.has(q));
  if (unknown.length) throw forbidden(`An object request with ?${unknown[0]} is not signed (object ACLs, tags, retention and the like stay the catalog's)`);
  if (r.method === 'POST' && !url.searchParams.has('uploads') && !url.searchParams.has('uploadId')) throw forbidden('POST is signed only for the steps of a multipart upload');
  return url;
}

/** Signs the request as `as`; the headers to send it with, each as a one-value list. */
export async function signedHeaders(r: SignRequest, url: URL, region: string, as: StoreCredentials): Promise<Record<string, string[]>> {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(r.headers)) {
    // What the signature itself supplies is never taken from the caller.
    if (!SUPPLIED.has(name.toLowerCase())) headers[name] = values.join(', ');
  }
  const signed = await signStoreRequest(region, as, { method: r.method, url, headers });
  return Object.fromEntries(Object.entries(signed).map(([name, value]) => [name, [value]]));
}
