import { requireLevel, type AccessContext } from '@floe/accounts';
import type { Db } from '@floe/db';
import { badRequest, conflict, HttpError, notFound } from '@floe/http';
import { reachableProjects, type ProjectRow } from './project-records';
import { tombstonesFor, visibleWarehouses, type TombstoneRecord, type VisibleWarehouse } from './warehouses';

// The global rule: wherever a project_id or warehouse_id is expected, the
// user's chosen name is accepted too. An unknown value is 404 naming both
// forms; one name held by two visible warehouses is 409 ambiguous_name.

export async function resolveProject(db: Db, ctx: AccessContext, idOrName: string): Promise<ProjectRow> {
  const found = await reachableProjects(db, ctx, idOrName);
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

export async function resolveWarehouse(db: Db, ctx: AccessContext, idOrName: string): Promise<VisibleWarehouse> {
  const found = await visibleWarehouses(db, ctx, { idOrName });
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

/** A route that acts in a warehouse's buckets or catalog needs it provisioned: 503 `provisioning` until then. */
export function requireReady(w: { name: string; status: string }): void {
  if (w.status !== 'ready') {
    throw new HttpError(503, 'provisioning', `catalog ${w.name} is still being provisioned`, { retry_after_seconds: 30 }, { 'Retry-After': '30' });
  }
}

/** A catalog being deleted or deleted answers with its tombstone, to those who could see it. */
async function refuseTombstone(db: Db, ctx: AccessContext, id: string): Promise<void> {
  const [t] = await tombstonesFor(db, ctx, id);
  if (!t) return;
  const deleting = t.status === 'deleting';
  throw notFound(deleting ? 'warehouse_deleting' : 'warehouse_deleted', `warehouse ${t.name} ${deleting ? 'is being deleted' : 'was deleted'}`, tombstoneView(t));
}

/**
 * The spec's tombstone fields (GET /v1/warehouses/{id} of a deleted catalog)
 * with Floe's: `measured_at` of `bytes_at_deletion`, `teardown_after`,
 * `teardown_error`, and while restore would take it, until when
 * (`restorable_until`: the grace rule's `teardown_after`, withinRestoreGrace).
 */
export function tombstoneView(t: TombstoneRecord) {
  const s = t.tombstone;
  return {
    warehouse_id: t.id,
    name: t.name,
    project_id: t.projectId,
    state: t.status,
    requested_at: t.requestedAt ? t.requestedAt.toISOString() : null,
    completed_at: s?.completed_at ?? null,
    tables_dropped: s?.tables_dropped ?? null,
    bytes_at_deletion: s?.bytes_at_deletion ?? null,
    measured_at: s?.measured_at ?? null,
    grants_removed: s?.grants_removed ?? null,
    usage_samples_removed: s?.usage_samples_removed ?? null,
    storage: { step: t.teardownStep ?? (t.status === 'deleted' ? 'done' : 'queued'), ...(s?.storage ?? {}) },
    // A row deleted before tombstones were kept says only that it is gone.
    storage_complete: s ? s.storage_complete : t.status === 'deleted',
    tables_refused: s?.tables_refused ?? null,
    // Floe's: why a catalog is still `deleting` past its grace period (null while nothing failed, and once teardown ends).
    teardown_error: s?.teardown_error ?? null,
    teardown_after: t.teardownAfter ? t.teardownAfter.toISOString() : null,
    restorable_until: t.restorable && t.teardownAfter ? t.teardownAfter.toISOString() : null,
  };
}

/**
 * The warehouse a table route (or the object read) names by `warehouse_id`
 * or its alias `warehouse` (query or body): resolved by id or name, read
 * level held for `what`, ready (503 `provisioning` otherwise).
 */
export async function tableWarehouse(db: Db, ctx: AccessContext, source: Record<string, unknown>, what = 'reading tables'): Promise<VisibleWarehouse> {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const which = text(source.warehouse_id) ?? text(source.warehouse);
  if (!which) throw badRequest('missing_field', 'warehouse_id is required (id or name)', { field: 'warehouse_id' });
  const w = await resolveWarehouse(db, ctx, which);
  await requireLevel(db, w, 'read', what);
  requireReady(w);
  return w;
}
