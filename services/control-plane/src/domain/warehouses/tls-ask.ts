import { warehouseByBucket } from '@floe/catalogs';
import type { Db } from '@floe/db';
import { notFound } from '@floe/http';

// GET /internal/tls-ask?domain=… — the certificate gate for virtual-hosted
// bucket names (`<bucket>.<store host>`): the TLS edge asks before it issues
// a certificate for a name, and gets 200 only for a bucket of a warehouse
// that exists and is not being deleted. Everything else, including a name
// outside the store's host, is 404, so nobody can make the edge issue
// certificates for names of their choosing.

const LIVE = new Set(['ready', 'provisioning']);

export async function tlsAsk(db: Db, storeHost: string, domain: string) {
  const name = domain.trim().toLowerCase().replace(/\.$/, '');
  const suffix = `.${storeHost.toLowerCase()}`;
  const bucket = name.endsWith(suffix) ? name.slice(0, -suffix.length) : null;
  const w = bucket && !bucket.includes('.') ? await warehouseByBucket(db, bucket) : null;
  if (!bucket || !w || !LIVE.has(w.status) || w.deletedAt) {
    throw notFound('not_found', `no certificate for ${JSON.stringify(domain)}: not a bucket of a live catalog under ${storeHost}`, { domain, issue: false });
  }
  return { domain: name, bucket, warehouse_id: w.id, kind: bucket === w.tableBucket ? 'tables' : 'blobs', issue: true };
}
