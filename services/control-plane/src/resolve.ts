import { conflict, notFound, type SqlClient } from '@floe/http';
import type { AccessContext } from './access/context';
import { visibleWarehouses, type VisibleWarehouse } from './store/warehouses';

// The global rule: wherever a project_id or warehouse_id is expected, the
// user's chosen name is accepted too. An unknown value is 404 naming both
// forms; one name held by two visible warehouses is 409 ambiguous_name.

export interface ProjectRow {
  id: string;
  name: string;
  provider: string;
  region: string;
  orgId: string | null;
  ownerId: string;
  createdAt: Date;
}

const PROJECT_COLUMNS = `id, name, provider, region, org_id AS "orgId", owner_id AS "ownerId", created_at AS "createdAt"`;

/** Projects the caller reaches: its organisations' and those it owns outside any organisation. */
export async function reachableProjects(db: SqlClient, ctx: AccessContext, where = '', values: unknown[] = []): Promise<ProjectRow[]> {
  const { rows } = await db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects
      WHERE (org_id = ANY($1::text[]) OR (org_id IS NULL AND owner_id = $2)) ${where}
      ORDER BY created_at, id`,
    [ctx.memberships.map((m) => m.orgId), ctx.principalId, ...values],
  );
  return rows;
}

export async function resolveProject(db: SqlClient, ctx: AccessContext, idOrName: string): Promise<ProjectRow> {
  const found = await reachableProjects(db, ctx, 'AND (id = $3 OR name = $3)', [idOrName]);
  const byId = found.find((p) => p.id === idOrName);
  if (byId) return byId;
  if (found.length > 1) {
    throw conflict('ambiguous_name', `${found.length} projects are named ${idOrName}; use a project_id`, {
      candidates: found.map((p) => ({ project_id: p.id, name: p.name, org_id: p.orgId })),
    });
  }
  if (found.length === 1) return found[0];
  throw notFound('project_not_found', `no project with id or name ${JSON.stringify(idOrName)}`, {
    remedy: 'pass a project_id or a project name from GET /v1/projects',
  });
}

export async function resolveWarehouse(db: SqlClient, ctx: AccessContext, idOrName: string): Promise<VisibleWarehouse> {
  const found = await visibleWarehouses(db, ctx, 'AND (w.id = $3 OR w.name = $3)', [idOrName]);
  const byId = found.find((w) => w.id === idOrName);
  if (byId) return byId;
  if (found.length > 1) {
    throw conflict('ambiguous_name', `${found.length} warehouses are named ${idOrName}; use a warehouse_id`, {
      candidates: found.map((w) => ({ warehouse_id: w.id, name: w.name, project_id: w.projectId, project: w.projectName })),
    });
  }
  if (found.length === 1) return found[0];
  await refuseTombstone(db, ctx, idOrName);
  throw notFound('warehouse_not_found', `no warehouse with id or name ${JSON.stringify(idOrName)}`, {
    remedy: 'pass a warehouse_id or a warehouse name from GET /v1/warehouses',
  });
}

/** A catalog being deleted or deleted answers with its tombstone, to those who could see it. */
async function refuseTombstone(db: SqlClient, ctx: AccessContext, id: string): Promise<void> {
  const { rows } = await db.query<{ id: string; name: string; status: string; deleted_at: Date | null; created_at: Date }>(
    `SELECT w.id, w.name, w.status, w.deleted_at, w.created_at FROM warehouses w JOIN projects p ON p.id = w.project_id
      WHERE w.id = $1 AND w.status IN ('deleting', 'deleted')
        AND (w.org_id = ANY($2::text[]) OR (w.org_id IS NULL AND p.owner_id = $3))`,
    [id, ctx.memberships.map((m) => m.orgId), ctx.principalId],
  );
  const t = rows[0];
  if (!t) return;
  const deleting = t.status === 'deleting';
  throw notFound(deleting ? 'warehouse_deleting' : 'warehouse_deleted', `warehouse ${t.name} ${deleting ? 'is being deleted' : 'was deleted'}`, {
    warehouse_id: t.id,
    name: t.name,
    state: t.status,
    requested_at: t.deleted_at ? new Date(t.deleted_at).toISOString() : null,
    completed_at: null,
    tables_dropped: null,
    bytes_at_deletion: null,
    grants_removed: null,
    usage_samples_removed: null,
    storage: { step: deleting ? 'queued' : 'done' },
    storage_complete: !deleting,
    tables_refused: null,
  });
}
