import type { MemberRecord, InvitationRecord } from '@floe/accounts';
import { type ProjectRow, type TombstoneRecord, type VisibleWarehouse, type WarehouseRecord, type CreatedWarehouse, probeView, tombstoneView } from '@floe/catalogs';
import type { FloeConfig } from '@floe/config';
import type { AuditEvent } from '@floe/db';
import { s3Uri } from '@floe/storage';
import { PROVISIONING_RETRY_SECONDS, PROVISIONING_WINDOW_SECONDS } from '@floe/queues';
import { LIST_URL_SECONDS, type ListedBlob } from './domain/blobs/blobs';
import { MAINTENANCE_DEFAULTS } from './domain/warehouses/plans';
import { storageAccessOf } from './domain/warehouses/warehouses';

// The shapes the spec gives for warehouses, built from a record. One place, so
// the list row, the get row and every answer that embeds them agree.

/** The hourly sweep's sample goes stale after two hours without a newer one. */
const STALE_AFTER_MS = 2 * 3600_000;

export const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

/** A project as POST /v1/projects answers it. */
export const projectView = (p: ProjectRow) => ({
  project_id: p.id,
  name: p.name,
  provider: p.provider,
  region: p.region,
  placement_immutable: true,
  org_id: p.orgId,
  created_at: iso(p.createdAt),
});

/** A row of GET /v1/projects. */
export const projectListRow = ({ id, name, provider, region, orgId, createdAt }: ProjectRow) => ({ project_id: id, name, provider, region, org_id: orgId, created_at: iso(createdAt) });

/** A member of an organisation (GET /v1/orgs/{org_id}/members). */
export const memberRow = (m: MemberRecord) => ({
  member_id: m.principalId, principal_id: m.principalId, kind: m.kind, email: m.email, display_name: m.displayName, role: m.role, joined_via: m.joinedVia, joined_at: m.joinedAt.toISOString(),
});

/** An invitation as its organisation's admins see it (never its token). */
export const invitationRow = (i: InvitationRecord) => ({
  invitation_id: i.id, org_id: i.orgId, email: i.email, role: i.role, invited_by: i.invitedBy, created_at: i.createdAt.toISOString(), expires_at: i.expiresAt.toISOString(),
  status: i.acceptedAt ? 'accepted' : i.expiresAt.getTime() <= Date.now() ? 'expired' : 'pending',
  accepted_at: iso(i.acceptedAt), accepted_by: i.acceptedBy,
});

/** An event of GET /v1/audit. */
export const auditEventRow = (e: AuditEvent) => ({
  id: String(e.id), action: e.action, actor_id: e.actorId, actor_kind: e.actorKind, org_id: e.orgId,
  target_type: e.targetType, target_id: e.targetId, request_id: e.requestId, data: e.data, created_at: e.createdAt.toISOString(),
});

export function storedOf(w: WarehouseRecord) {
  const u = w.usage;
  if (!u) {
    return {
      bytes: null, table_bytes: null, blob_bytes: null, objects: null, blob_objects: null, complete: false,
      measured_at: null, stale_after: null, source: null, unmetered: true, measuring: w.status === 'ready',
    };
  }
  return {
    bytes: u.tableBytes + u.blobBytes,
    table_bytes: u.tableBytes,
    blob_bytes: u.blobBytes,
    objects: u.objects + u.blobObjects,
    blob_objects: u.blobObjects,
    complete: u.complete,
    measured_at: iso(u.measuredAt),
    stale_after: iso(u.staleAfter ?? new Date(new Date(u.measuredAt).getTime() + STALE_AFTER_MS)),
    source: u.source,
    unmetered: false,
    measuring: false,
  };
}

/** Where anyone reads a public catalog's files: the table bucket, or the part of it its files prefix names. */
export function publicUrlOf(config: Pick<FloeConfig, 's3Url'>, w: Pick<WarehouseRecord, 'publicSince' | 'tableBucket' | 'publicPrefix'>): string | null {
  return w.publicSince ? `${config.s3Url}/${w.tableBucket}/${w.publicPrefix}` : null;
}

/** A row of GET /v1/warehouses. */
export function warehouseListRow(config: FloeConfig, w: VisibleWarehouse) {
  return {
    name: w.name,
    warehouse_id: w.id,
    warehouse: s3Uri(w.tableBucket),
    bucket: w.tableBucket,
    blob_bucket: w.blobBucket,
    project_id: w.projectId,
    project: w.projectName,
    created_at: iso(w.createdAt),
    my_level: w.access.level,
    my_via: w.access.via,
    status: w.status,
    default_format_version: w.defaultFormatVersion,
    storage_access: storageAccessOf(w),
    stored: storedOf(w),
    public: w.publicSince !== null,
    public_since: iso(w.publicSince),
    public_url: publicUrlOf(config, w),
  };
}

/**
 * A row of GET /v1/warehouses?include_deleted=true for a catalog being
 * deleted that restore would still take: its names and project, `status:
 * deleting`, and its tombstone as GET /v1/warehouses/{id} answers it
 * (`state`, `bytes_at_deletion`, `measured_at`, `restorable_until`, …).
 */
export function deletedWarehouseRow(t: TombstoneRecord) {
  return {
    ...tombstoneView(t),
    bucket: t.tombstone?.buckets.table ?? null,
    blob_bucket: t.tombstone?.buckets.blob ?? null,
    project: t.projectName,
    created_at: iso(t.createdAt),
    status: t.status,
    restore: `/v1/warehouses/${t.id}/restore`,
  };
}

export const PUBLIC_NOTE = 'Anyone can read every object of this catalog\'s table bucket without credentials; writes stay refused and the catalog itself stays private.';

/** GET /v1/warehouses/{id}: the list row plus placement and the catalog address. */
export function warehouseGetRow(config: FloeConfig, w: VisibleWarehouse, project: { provider: string; region: string }) {
  return {
    ...warehouseListRow(config, w),
    warehouse_name: w.tableBucket,
    catalog_uri: config.catalogUrl,
    provider: project.provider,
    region: project.region,
    ...(w.publicSince ? { public_note: PUBLIC_NOTE } : {}),
  };
}

/** The answer of POST /v1/warehouses. */
export function createdWarehouseAnswer(config: FloeConfig, project: ProjectRow, c: CreatedWarehouse) {
  const w = c.warehouse;
  return {
    warehouse_id: w.id,
    name: w.name,
    project_id: project.id,
    project: project.name,
    provider: project.provider,
    region: project.region,
    catalog_uri: config.catalogUrl,
    warehouse: s3Uri(w.tableBucket),
    warehouse_name: w.tableBucket,
    bucket: w.tableBucket,
    blob_bucket: w.blobBucket,
    default_format_version: w.defaultFormatVersion,
    maintenance: MAINTENANCE_DEFAULTS,
    storage_measurement: { status: 'scheduled', in_seconds: 120, then: 'hourly' },
    status: c.status,
    storage_probe: probeView(c.probe, w.tableBucket, w.blobBucket),
    ...(c.probe.ok ? {} : {
      retry_after_seconds: PROVISIONING_RETRY_SECONDS,
      remedy: `the object store refused the first write; the service retries every ${PROVISIONING_RETRY_SECONDS} s for ${PROVISIONING_WINDOW_SECONDS / 60} minutes and GET /v1/connection answers 503 provisioning until then`,
    }),
  };
}

/** A token record as GET …/agents/{id} answers it: grants with names, the connection block, creator, last key use; never a key. */

/** The last segment of a key or folder (after the delimiter, or `/` in a flat listing), without its trailing delimiter. */
function lastSegment(path: string, delimiter: string): string {
  const sep = delimiter || '/';
  const trimmed = path.endsWith(sep) ? path.slice(0, -sep.length) : path;
  const at = trimmed.lastIndexOf(sep);
  return at < 0 ? trimmed : trimmed.slice(at + sep.length);
}

/** GET /v1/warehouses/{id}/blobs: one page of objects and folders. */
export function blobListing(
  w: { id: string; name: string; blobBucket: string },
  q: { prefix: string; delimiter: string; maxKeys: number },
  page: { objects: ListedBlob[]; folders: string[]; nextToken: string | null; urlsExpireAt: Date | null },
) {
  return {
    warehouse_id: w.id,
    name: w.name,
    bucket: w.blobBucket,
    prefix: q.prefix,
    delimiter: q.delimiter,
    max_keys: q.maxKeys,
    objects: page.objects.map((o) => ({
      key: o.key, name: lastSegment(o.key, q.delimiter), size: o.size, last_modified: iso(o.lastModified), etag: o.etag, ...(o.url ? { url: o.url } : {}),
    })),
    folders: page.folders.map((prefix) => ({ prefix, name: lastSegment(prefix, q.delimiter) })),
    count: page.objects.length + page.folders.length,
    truncated: page.nextToken !== null,
    next_token: page.nextToken,
    ...(page.urlsExpireAt ? { urls_expire_in: LIST_URL_SECONDS, urls_expire_at: page.urlsExpireAt.toISOString() } : {}),
  };
}
