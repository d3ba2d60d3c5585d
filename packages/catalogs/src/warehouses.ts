import { accessOf, heldGrantLevels, rank, type Access, type Level, membershipIn, type AccessContext } from '@floe/accounts';
import { Prisma, type Db } from '@floe/db';
import { withinRestoreGrace } from './deletion/restore-records';
import { tombstoneOf, type TeardownStep, type Tombstone } from './deletion/warehouse-deletion';

// Warehouse rows as the control plane reads them: joined with their project,
// organisation, the caller's explicit grant and the latest usage sample. The
// storage keys are not among them: store/storage-keys.ts opens those where needed.

export type WarehouseStatus = 'creating' | 'provisioning' | 'ready' | 'deleting' | 'deleted';

export interface UsageSampleRow {
  measuredAt: Date;
  source: string;
  tableBytes: number;
  blobBytes: number;
  objects: number;
  blobObjects: number;
  complete: boolean;
  /** Null on samples older than the metering worker (readers add two hours). */
  staleAfter: Date | null;
}

export interface WarehouseRecord {
  id: string;
  name: string;
  projectId: string;
  projectName: string;
  projectOwner: string;
  orgId: string | null;
  handle: string | null;
  tableBucket: string;
  blobBucket: string;
  defaultFormatVersion: 2 | 3;
  status: WarehouseStatus;
  storageUid: string;
  storageRoUid: string;
  roleName: string;
  roleArn: string | null;
  createdBy: string | null;
  createdAt: Date;
  deletedAt: Date | null;
  provisionUntil: Date | null;
  publicSince: Date | null;
  publicBy: string | null;
  /** While public: the key prefix anyone may read under ('' for the whole table bucket). */
  publicPrefix: string;
  /** Engines get no storage credentials, only signed requests. */
  signingOnly: boolean;
  /** The caller's explicit grant row, when the query was made for a caller. */
  grantLevel: Level | null;
  usage: UsageSampleRow | null;
}

interface WarehouseSqlRow {
  id: string; name: string; project_id: string; project_name: string; project_owner: string; org_id: string | null; handle: string | null;
  table_bucket: string; blob_bucket: string; default_format_version: number; status: WarehouseStatus; storage_uid: string; storage_ro_uid: string;
  role_name: string; role_arn: string | null; created_by: string | null; created_at: Date; deleted_at: Date | null;
  provision_until: Date | null; public_since: Date | null; public_by: string | null; public_prefix: string | null; signing_only: boolean; grant_level: Level | null;
  s_measured_at: Date | null; s_source: string; s_table_bytes: bigint; s_blob_bytes: bigint; s_objects: bigint; s_blob_objects: bigint; s_complete: boolean; s_stale_after: Date | null;
}

// Raw: one round trip joins the project, organisation, the caller's grant and
// the latest usage sample (LATERAL, which the client cannot say).
const select = (principalId: string) => Prisma.sql`
  SELECT w.id, w.name, w.project_id, p.name AS project_name, p.owner_id AS project_owner, w.org_id, o.handle,
         w.table_bucket, w.blob_bucket, w.default_format_version, w.status, w.storage_uid, w.storage_ro_uid,
         w.role_name, w.role_arn, w.created_by, w.created_at, w.deleted_at,
         w.provision_until, w.public_since, w.public_by, w.public_prefix, w.signing_only, g.level AS grant_level,
         s.measured_at AS s_measured_at, s.source AS s_source, s.table_bytes AS s_table_bytes, s.blob_bytes AS s_blob_bytes,
         s.objects AS s_objects, s.blob_objects AS s_blob_objects, s.complete AS s_complete, s.stale_after AS s_stale_after
    FROM warehouses w
    JOIN projects p ON p.id = w.project_id
    LEFT JOIN organizations o ON o.id = w.org_id
    LEFT JOIN warehouse_grants g ON g.warehouse_id = w.id AND g.principal_id = ${principalId}
    LEFT JOIN LATERAL (SELECT * FROM usage_samples u WHERE u.warehouse_id = w.id ORDER BY u.measured_at DESC LIMIT 1) s ON true`;

function toRecord(r: WarehouseSqlRow): WarehouseRecord {
  return {
    id: r.id,
    name: r.name,
    projectId: r.project_id,
    projectName: r.project_name,
    projectOwner: r.project_owner,
    orgId: r.org_id,
    handle: r.handle,
    tableBucket: r.table_bucket,
    blobBucket: r.blob_bucket,
    defaultFormatVersion: r.default_format_version === 3 ? 3 : 2,
    status: r.status,
    storageUid: r.storage_uid,
    storageRoUid: r.storage_ro_uid,
    roleName: r.role_name,
    roleArn: r.role_arn,
    createdBy: r.created_by,
    createdAt: r.created_at,
    deletedAt: r.deleted_at,
    provisionUntil: r.provision_until,
    publicSince: r.public_since,
    publicBy: r.public_by,
    publicPrefix: r.public_prefix ?? '',
    signingOnly: r.signing_only,
    grantLevel: r.grant_level,
    usage: r.s_measured_at
      ? {
          measuredAt: r.s_measured_at,
          source: r.s_source,
          tableBytes: Number(r.s_table_bytes),
          blobBytes: Number(r.s_blob_bytes),
          objects: Number(r.s_objects),
          blobObjects: Number(r.s_blob_objects),
          complete: r.s_complete,
          staleAfter: r.s_stale_after,
        }
      : null,
  };
}

/** Narrows a listing: to one project, or to the warehouses whose id or name is the given one. */
export interface WarehouseFilter {
  projectId?: string;
  idOrName?: string;
}

/** Live warehouses (ready or provisioning) the caller's organisations or owned projects hold. Levels decide visibility. */
export async function candidateWarehouses(db: Db, ctx: AccessContext, filter: WarehouseFilter = {}): Promise<WarehouseRecord[]> {
  const orgIds = ctx.memberships.map((m) => m.orgId);
  const rows = await db.$queryRaw<WarehouseSqlRow[]>`${select(ctx.principalId)}
     WHERE w.status IN ('ready', 'provisioning') AND w.deleted_at IS NULL
       AND (w.org_id = ANY(${orgIds}::text[]) OR (w.org_id IS NULL AND p.owner_id = ${ctx.principalId}))
       ${filter.projectId !== undefined ? Prisma.sql`AND w.project_id = ${filter.projectId}` : Prisma.empty}
       ${filter.idOrName !== undefined ? Prisma.sql`AND (w.id = ${filter.idOrName} OR w.name = ${filter.idOrName})` : Prisma.empty}
     ORDER BY w.created_at, w.id`;
  return rows.map(toRecord);
}

/** One warehouse by id in any state (tombstones included), with the given principal's grant. */
export async function warehouseById(db: Db, id: string, principalId = ''): Promise<WarehouseRecord | null> {
  const rows = await db.$queryRaw<WarehouseSqlRow[]>`${select(principalId)} WHERE w.id = ${id}`;
  return rows[0] ? toRecord(rows[0]) : null;
}

export interface TombstoneRecord {
  id: string;
  name: string;
  status: 'deleting' | 'deleted';
  projectId: string | null;
  projectName: string | null;
  orgId: string | null;
  projectOwner: string | null;
  createdBy: string | null;
  createdAt: Date;
  requestedAt: Date | null;
  teardownAfter: Date | null;
  teardownStep: TeardownStep | null;
  tombstone: Tombstone | null;
  /** Restore would take it now (withinRestoreGrace, on the database's clock); then `teardownAfter` is until when. */
  restorable: boolean;
}

interface TombstoneSqlRow {
  id: string; name: string; status: 'deleting' | 'deleted'; project_id: string | null; project_name: string | null; org_id: string | null;
  project_owner: string | null; created_by: string | null; created_at: Date; deleted_at: Date | null; teardown_after: Date | null;
  teardown_step: TeardownStep | null; tombstone: unknown; restorable: boolean;
}

/** Narrows the deleted catalogs a caller sees. */
export interface DeletedFilter {
  /** By id; with `byName`, also by name among the ones being deleted. */
  idOrName?: string;
  byName?: boolean;
  projectId?: string;
  /** Only those restore would still take (the listing's `include_deleted`). */
  restorableOnly?: boolean;
}

/**
 * Catalogs being deleted or deleted that the caller sees, newest deletion
 * first: of its organisations or owned projects, and visible to it by the
 * rule a live catalog is (accessTo) with the catalog's held grants (kept for
 * restore until teardown ends) standing in for its grants. So an admin, a
 * person who is a member and the creator see them as before; a member token
 * sees only those it was granted before the deletion, and none once
 * teardown has dropped the held grants. Another organisation's caller sees none.
 */
export async function deletedWarehouses(db: Db, ctx: AccessContext, f: DeletedFilter = {}): Promise<TombstoneRecord[]> {
  const orgIds = ctx.memberships.map((m) => m.orgId);
  const which = f.idOrName === undefined ? Prisma.empty
    : f.byName ? Prisma.sql`AND (w.id = ${f.idOrName} OR (w.name = ${f.idOrName} AND w.status = 'deleting'))`
      : Prisma.sql`AND w.id = ${f.idOrName}`;
  // Raw: whether restore would take it is the grace rule, on the database's clock (withinRestoreGrace).
  const rows = await db.$queryRaw<TombstoneSqlRow[]>`
    SELECT w.id, w.name, w.status, w.project_id, p.name AS project_name, w.org_id, p.owner_id AS project_owner, w.created_by, w.created_at,
           w.deleted_at, w.teardown_after, w.teardown_step, w.tombstone, ${withinRestoreGrace('w')} AS restorable
      FROM warehouses w LEFT JOIN projects p ON p.id = w.project_id
     WHERE w.status IN ('deleting', 'deleted')
       AND (w.org_id = ANY(${orgIds}::text[]) OR (w.org_id IS NULL AND p.owner_id = ${ctx.principalId}))
       ${which}
       ${f.projectId !== undefined ? Prisma.sql`AND w.project_id = ${f.projectId}` : Prisma.empty}
       ${f.restorableOnly ? Prisma.sql`AND ${withinRestoreGrace('w')}` : Prisma.empty}
     ORDER BY w.deleted_at DESC NULLS LAST, w.id`;
  const records: TombstoneRecord[] = rows.map((r) => ({
    id: r.id, name: r.name, status: r.status, projectId: r.project_id, projectName: r.project_name, orgId: r.org_id, projectOwner: r.project_owner,
    createdBy: r.created_by, createdAt: r.created_at, requestedAt: r.deleted_at, teardownAfter: r.teardown_after, teardownStep: r.teardown_step,
    tombstone: tombstoneOf(r.tombstone), restorable: r.restorable,
  }));
  return seenDeleted(db, ctx, records);
}

/** A warehouse being deleted or deleted, by id (or, with `byName`, by name among the deleting ones), if the caller sees it (deletedWarehouses). */
export async function tombstonesFor(db: Db, ctx: AccessContext, idOrName: string, byName = false): Promise<TombstoneRecord[]> {
  const rows = await deletedWarehouses(db, ctx, { idOrName, byName });
  // The one named by id first, then the newest deletion.
  return rows.sort((a, b) => Number(b.id === idOrName) - Number(a.id === idOrName));
}

async function seenDeleted(db: Db, ctx: AccessContext, rows: TombstoneRecord[]): Promise<TombstoneRecord[]> {
  if (!rows.length) return rows;
  const cappers = ctx.cappedBy ?? [];
  const held = await heldGrantLevels(db, [ctx.principalId, ...cappers.map((c) => c.principalId)], rows.map((r) => r.id));
  // A token's cappers are judged on the deleted catalog as well: with their held grants there too.
  const judged: AccessContext = ctx.cappedBy
    ? { ...ctx, cappedBy: cappers.map((c) => ({ ...c, grants: new Map([...c.grants, ...(held.get(c.principalId) ?? [])]) })) }
    : ctx;
  return rows.filter((r) => accessTo(judged, { ...r, grantLevel: held.get(ctx.principalId)?.get(r.id) ?? null }).visible);
}

/** Sets the catalog's default format version. */
export async function setDefaultFormatVersion(db: Db, id: string, version: 2 | 3): Promise<void> {
  await db.warehouse.updateMany({ where: { id }, data: { defaultFormatVersion: version } });
}

/**
 * Floe's storage-access switch: true, engines get signed requests only (no
 * storage credentials). False when it was already so: of concurrent equal
 * switches, one changes the row (and is audited).
 */
export async function setSigningOnly(db: Db, id: string, signingOnly: boolean): Promise<boolean> {
  return (await db.warehouse.updateMany({ where: { id, signingOnly: !signingOnly }, data: { signingOnly } })).count === 1;
}

/** Marks the catalog public under `prefix` (keeping the first publication's time and publisher); answers both. */
export async function markPublic(db: Db, id: string, by: string, prefix: string): Promise<{ publicSince: Date; publicBy: string }> {
  // Raw: COALESCE keeps the first publication's time and publisher in one statement.
  const rows = await db.$queryRaw<Array<{ public_since: Date; public_by: string }>>`
    UPDATE warehouses SET public_since = COALESCE(public_since, now()), public_by = COALESCE(public_by, ${by}), public_prefix = ${prefix}
     WHERE id = ${id} RETURNING public_since, public_by`;
  return { publicSince: rows[0].public_since, publicBy: rows[0].public_by };
}

/** Forgets a publication; answers whether the catalog is read-only (the metering worker's mark), which decides the table bucket's quota. */
export async function markPrivate(db: Db, id: string): Promise<{ readOnlySince: Date | null }> {
  const row = await db.warehouse.update({ where: { id }, data: { publicSince: null, publicBy: null, publicPrefix: null }, select: { readOnlySince: true } });
  return { readOnlySince: row.readOnlySince };
}

/** Every warehouse whose buckets still exist or may (not `creating`, not `deleted`), oldest first: the lifecycle audit's worklist. */
export async function warehousesWithBuckets(db: Db): Promise<Array<{ id: string; name: string; tableBucket: string; blobBucket: string; status: string }>> {
  return db.warehouse.findMany({
    where: { status: { in: ['ready', 'provisioning', 'deleting'] } },
    select: { id: true, name: true, tableBucket: true, blobBucket: true, status: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** What access is judged on: a catalog's scope, creator and the caller's grant there. */
export type AccessSubject = Pick<WarehouseRecord, 'id' | 'orgId' | 'createdBy' | 'grantLevel'> & { projectOwner: string | null };

export function accessTo(ctx: AccessContext, w: AccessSubject): Access {
  const m = membershipIn(ctx, w.orgId);
  const access = accessOf({
    principalId: ctx.principalId,
    kind: ctx.kind,
    membership: m ? { role: m.role, confined: m.confined } : null,
    ownsProject: w.orgId === null && w.projectOwner === ctx.principalId,
    createdBy: w.createdBy,
    grant: w.grantLevel ? { level: w.grantLevel } : null,
  });
  return cappedForToken(ctx, w, access);
}

/**
 * A token's access: at most each capper's on this warehouse (an OAuth
 * token's person, an agent's makers; none: not seen at all), and read only
 * under a read scope.
 */
function cappedForToken(ctx: AccessContext, w: AccessSubject, access: Access): Access {
  let capped = access;
  for (const c of ctx.cappedBy ?? []) {
    const m = c.memberships.find((x) => x.orgId === w.orgId);
    const theirs = accessOf({
      principalId: c.principalId, kind: c.kind, membership: m ? { role: m.role, confined: m.confined } : null,
      ownsProject: w.orgId === null && w.projectOwner === c.principalId, createdBy: w.createdBy,
      grant: c.grants.has(w.id) ? { level: c.grants.get(w.id)! } : null,
    });
    if (theirs.level === 'none') return { level: 'none', via: null, visible: false };
    if (rank(theirs.level) < rank(capped.level)) capped = { ...capped, level: theirs.level };
  }
  return ctx.readOnly && capped.level === 'write' ? { ...capped, level: 'read' } : capped;
}

export interface VisibleWarehouse extends WarehouseRecord {
  access: Access;
}

export async function visibleWarehouses(db: Db, ctx: AccessContext, filter: WarehouseFilter = {}): Promise<VisibleWarehouse[]> {
  const all = await candidateWarehouses(db, ctx, filter);
  return all.map((w) => ({ ...w, access: accessTo(ctx, w) })).filter((w) => w.access.visible);
}

/**
 * Public, live warehouses a public address `/v1/public/{handle}/{catalog}`
 * may mean: by the table bucket those two make, by the organisation's handle
 * and the catalog's name, or (outside an organisation) by the owner part
 * `u-<8 hex>` of bucket names and the name. Older catalogs keep `w-<uuid>`
 * buckets, so the last two can match more than one.
 */
export async function publicWarehousesAt(db: Db, handle: string, catalog: string, tableBucket: string | null): Promise<WarehouseRecord[]> {
  const rows = await db.$queryRaw<WarehouseSqlRow[]>`${select('')}
     WHERE w.public_since IS NOT NULL AND w.status IN ('ready', 'provisioning') AND w.deleted_at IS NULL
       AND (w.table_bucket = ${tableBucket ?? ''}
            OR (o.handle = ${handle} AND w.name = ${catalog})
            OR (w.org_id IS NULL AND w.name = ${catalog} AND 'u-' || left(regexp_replace(p.owner_id, '[^0-9a-f]', '', 'g'), 8) = ${handle}))
     ORDER BY w.created_at, w.id`;
  return rows.map(toRecord);
}

/** The warehouse one of whose two buckets has this name, in any state. */
export async function warehouseByBucket(db: Db, bucket: string): Promise<WarehouseRecord | null> {
  const rows = await db.$queryRaw<WarehouseSqlRow[]>`${select('')} WHERE w.table_bucket = ${bucket} OR w.blob_bucket = ${bucket}`;
  return rows[0] ? toRecord(rows[0]) : null;
}
