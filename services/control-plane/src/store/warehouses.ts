import type { SqlClient } from '@floe/http';
import { accessOf, type Access, type Level } from '../access/levels';
import { membershipIn, type AccessContext } from '../access/context';

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
  /** The caller's explicit grant row, when the query was made for a caller. */
  grantLevel: Level | null;
  usage: UsageSampleRow | null;
}

const SELECT = `
  SELECT w.id, w.name, w.project_id, p.name AS project_name, p.owner_id AS project_owner, w.org_id, o.handle,
         w.table_bucket, w.blob_bucket, w.default_format_version, w.status, w.storage_uid, w.storage_ro_uid,
         w.role_name, w.role_arn, w.created_by, w.created_at, w.deleted_at,
         w.provision_until, w.public_since, w.public_by, g.level AS grant_level,
         s.measured_at AS s_measured_at, s.source AS s_source, s.table_bytes AS s_table_bytes, s.blob_bytes AS s_blob_bytes,
         s.objects AS s_objects, s.blob_objects AS s_blob_objects, s.complete AS s_complete
    FROM warehouses w
    JOIN projects p ON p.id = w.project_id
    LEFT JOIN organizations o ON o.id = w.org_id
    LEFT JOIN warehouse_grants g ON g.warehouse_id = w.id AND g.principal_id = $1
    LEFT JOIN LATERAL (SELECT * FROM usage_samples u WHERE u.warehouse_id = w.id ORDER BY u.measured_at DESC LIMIT 1) s ON true`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toRecord(r: any): WarehouseRecord {
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
        }
      : null,
  };
}

/** Live warehouses (ready or provisioning) the caller's organisations or owned projects hold. Levels decide visibility. */
export async function candidateWarehouses(db: SqlClient, ctx: AccessContext, where = '', values: unknown[] = []): Promise<WarehouseRecord[]> {
  const orgIds = ctx.memberships.map((m) => m.orgId);
  const { rows } = await db.query(
    `${SELECT}
     WHERE w.status IN ('ready', 'provisioning') AND w.deleted_at IS NULL
       AND (w.org_id = ANY($2::text[]) OR (w.org_id IS NULL AND p.owner_id = $1)) ${where}
     ORDER BY w.created_at, w.id`,
    [ctx.principalId, orgIds, ...values],
  );
  return rows.map(toRecord);
}

/** One warehouse by id in any state (tombstones included), with the given principal's grant. */
export async function warehouseById(db: SqlClient, id: string, principalId = ''): Promise<WarehouseRecord | null> {
  const { rows } = await db.query(`${SELECT} WHERE w.id = $2`, [principalId, id]);
  return rows[0] ? toRecord(rows[0]) : null;
}

export function accessTo(ctx: AccessContext, w: WarehouseRecord): Access {
  const m = membershipIn(ctx, w.orgId);
  return accessOf({
    principalId: ctx.principalId,
    kind: ctx.kind,
    membership: m ? { role: m.role, confined: m.confined } : null,
    ownsProject: w.orgId === null && w.projectOwner === ctx.principalId,
    createdBy: w.createdBy,
    grant: w.grantLevel ? { level: w.grantLevel } : null,
  });
}

export interface VisibleWarehouse extends WarehouseRecord {
  access: Access;
}

export async function visibleWarehouses(db: SqlClient, ctx: AccessContext, where = '', values: unknown[] = []): Promise<VisibleWarehouse[]> {
  const all = await candidateWarehouses(db, ctx, where, values);
  return all.map((w) => ({ ...w, access: accessTo(ctx, w) })).filter((w) => w.access.visible);
}
