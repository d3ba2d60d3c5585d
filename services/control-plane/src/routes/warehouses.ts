import type { Express } from 'express';
import { ConfirmWarehouseBody, CreateWarehouseBody } from '@floe/api';
import { requireAdmin } from '@floe/accounts';
import { resolveProject, resolveWarehouse, createWarehouse } from '@floe/catalogs';
import { badRequest, HttpError, idempotent, parse, route, writeAudit } from '@floe/http';
import { agentsMdSummaryView } from '../agents-md-responses';
import type { ControlPlaneDeps } from '../deps';
import { instructionsSummary } from '../domain/warehouses/agents-md';
import { formatInfo } from '../domain/warehouses/formats';
import { DELETE_NOTE, deleteInProgress, deleteWarehouse } from '../domain/warehouses/warehouse-delete';
import { changeWarehouseSettings, listWarehouses, parseFormatVersion, parseStorageAccess, placementOfWarehouse } from '../domain/warehouses/warehouses';
import { createdWarehouseAnswer, deletedWarehouseRow, warehouseGetRow, warehouseListRow } from '../responses';

// Spec: Warehouses (catalogs) — create, list (and Floe's `?include_deleted=true`), get, patch, delete.

/** What PATCH /v1/warehouses/{id} sets. */
const SETTINGS = ['default_format_version', 'storage_access'] as const;
const STORAGE_ACCESS_NOTE = 'storage_access "signing_only": engines asking for vended credentials get the remote-signing config instead, the credentials route and scan plans vend none, and every request to the store is signed by the catalog for objects under the table\'s own location only; "vended": credentials are vended when asked for, and requests signed when asked for.';
const FORMAT_NOTE = 'Governs only the service\'s own create paths (POST /v1/tables, tool-server create, table import); an engine\'s own CREATE TABLE is honoured as sent; existing tables are unchanged.';

export function mountWarehouses(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses', {
    post: [...d.authed, idempotent(d.idempotency, 'POST /v1/warehouses'), async (req, res) => {
      const ctx = req.access!;
      const body = parse(CreateWarehouseBody, req.body);
      const project = await resolveProject(d.prisma, ctx, body.project_id);
      const formatVersion = body.default_format_version === undefined ? 2 : parseFormatVersion(body.default_format_version);
      const created = await createWarehouse(d, ctx, project, { name: body.name, formatVersion, requestId: req.requestId });
      await writeAudit(d.db, req, {
        action: 'warehouse.create', orgId: project.orgId, targetType: 'warehouse', targetId: created.warehouse.id,
        data: { name: created.warehouse.name, project_id: project.id, status: created.status, bucket: created.warehouse.tableBucket },
      });
      res.status(201).json(createdWarehouseAnswer(d.config, project, created));
    }],
    get: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const asked = typeof req.query.project === 'string' && req.query.project !== '' ? req.query.project : null;
      // Floe's `?include_deleted=true`: the caller's catalogs being deleted that can still be restored, after the live ones.
      const { project, warehouses: rows, deleted, headroom, limit } = await listWarehouses(d, ctx, asked, req.query.include_deleted === 'true');
      res.json({
        project: project?.name ?? null,
        project_id: project?.id ?? null,
        catalog_uri: d.config.catalogUrl,
        warehouses: [...rows.map((w) => warehouseListRow(d.config, w)), ...deleted.map(deletedWarehouseRow)],
        count: rows.length + deleted.length,
        limit,
        headroom,
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id', {
    get: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      const [placement, agentsMd] = await Promise.all([placementOfWarehouse(d, w), instructionsSummary(d.prisma, w)]);
      // Floe's: whether the catalog has instructions for assistants (GET …/agents-md has the text).
      res.json({ ...warehouseGetRow(d.config, w, placement), agents_md: agentsMdSummaryView(agentsMd) });
    }],
    delete: [...d.authed, async (req, res) => {
      // validate, authorize
      const ctx = req.access!;
      const asked = String(req.params.warehouse_id);
      const w = await resolveWarehouse(d.prisma, ctx, asked).catch((err) => {
        throw err instanceof HttpError && err.code === 'warehouse_deleting' ? deleteInProgress(String(err.extras.warehouse_id)) : err;
      });
      requireAdmin(ctx, w, 'deleting a catalog');
      const body = parse(ConfirmWarehouseBody, req.body ?? {});
      if (body.confirm !== w.name) {
        throw badRequest('confirmation_required', `deleting a catalog cannot be undone after its grace period; confirm with its name: {"confirm": "${w.name}"}`, { confirm_with: w.name, field: 'confirm' });
      }
      // act (audited inside the deletion's transaction)
      const { warehouse: gone, warning } = await deleteWarehouse(
        { ...d, redisPrefix: d.config.redisPrefix, graceSeconds: d.config.teardown.graceSeconds }, w.id,
        { principalId: ctx.principalId, kind: ctx.kind, requestId: req.requestId, ip: req.ip ?? null },
      );
      // answer
      const t = gone.tombstone;
      res.status(202).json({
        status: 'deleting',
        warehouse_id: gone.id,
        name: gone.name,
        project_id: gone.projectId,
        bytes_at_deletion: t.bytes_at_deletion,
        measured_at: t.measured_at,
        grants_removed: t.grants_removed,
        usage_samples_removed: t.usage_samples_removed,
        tables_dropped: null,
        storage: null,
        storage_complete: null,
        requested_at: gone.requestedAt.toISOString(),
        restorable_until: gone.teardownAfter.toISOString(),
        restore: `/v1/warehouses/${gone.id}/restore`,
        poll: `/v1/warehouses/${gone.id}`,
        note: DELETE_NOTE,
        ...(warning ? { warning } : {}),
      });
    }],
    patch: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.prisma, ctx, String(req.params.warehouse_id));
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length === 0) {
        throw badRequest('missing_field', 'send {"default_format_version": 2|3} or {"storage_access": "vended"|"signing_only"}', { field: 'default_format_version' });
      }
      const unknown = Object.keys(body).filter((k) => !(SETTINGS as readonly string[]).includes(k));
      if (unknown.length) {
        throw badRequest('invalid_field', `${unknown.join(', ')} cannot be changed here`, { field: unknown[0], accepts: SETTINGS });
      }
      const next = {
        defaultFormatVersion: 'default_format_version' in body ? parseFormatVersion(body.default_format_version) : undefined,
        storageAccess: 'storage_access' in body ? parseStorageAccess(body.storage_access) : undefined,
      };
      const { previous, updated, warehouse: fresh } = await changeWarehouseSettings(d, ctx, w, next);
      if (updated.length) {
        const changes = Object.fromEntries(updated.map((k) => [k, k === 'default_format_version' ? next.defaultFormatVersion : next.storageAccess]));
        const before = Object.fromEntries(updated.map((k) => [k, previous[k]]));
        await writeAudit(d.db, req, { action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { changes, previous: before } });
      }
      const unchanged = Object.keys(body).filter((k) => !(updated as string[]).includes(k));
      const notes = [
        ...(unchanged.length ? [`${unchanged.join(' and ')} ${unchanged.length > 1 ? 'were' : 'was'} already set so; nothing changed there.`] : []),
        ...('default_format_version' in body ? [FORMAT_NOTE] : []),
        ...('storage_access' in body ? [STORAGE_ACCESS_NOTE] : []),
      ];
      res.json({
        ...warehouseGetRow(d.config, fresh, await placementOfWarehouse(d, w)),
        updated,
        previous,
        format: formatInfo(fresh.defaultFormatVersion),
        note: notes.join(' '),
      });
    }],
  });
}
