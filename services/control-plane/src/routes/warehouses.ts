import type { Express } from 'express';
import { z } from 'zod';
import { badRequest, idempotent, notImplemented, parse, route, writeAudit } from '@floe/http';
import { requireLevel } from '../access/require';
import type { ControlPlaneDeps } from '../deps';
import { formatInfo } from '../domain/formats';
import { FORMAT_VERSIONS, FREE_PLAN } from '../domain/plans';
import { createWarehouse } from '../domain/warehouse-create';
import { resolveProject, resolveWarehouse } from '../resolve';
import { countedInProject } from '../store/warehouse-creation';
import { visibleWarehouses } from '../store/warehouses';
import { createdWarehouseAnswer, warehouseGetRow, warehouseListRow } from '../views';

// Spec: Warehouses (catalogs) — create, list, get, patch.

const FormatVersion = z.unknown().optional();

const CreateWarehouse = z.object({
  project_id: z.string().min(1),
  name: z.string().min(1),
  default_format_version: FormatVersion,
});

const FORMAT_NOTE = 'Governs only the service\'s own create paths (POST /v1/tables, tool-server create, table import); an engine\'s own CREATE TABLE is honoured as sent; existing tables are unchanged.';

export function parseFormatVersion(v: unknown, field = 'default_format_version'): 2 | 3 {
  if (v === 2 || v === 3) return v;
  if (v === '2' || v === '3') return Number(v) as 2 | 3;
  throw badRequest('invalid_value', `${field} must be 2 or 3`, { field, versions: FORMAT_VERSIONS });
}

export function mountWarehouses(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses', {
    post: [...d.authed, idempotent(d.idempotency, 'POST /v1/warehouses'), async (req, res) => {
      const ctx = req.access!;
      const body = parse(CreateWarehouse, req.body);
      const project = await resolveProject(d.db, ctx, body.project_id);
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
      const project = asked ? await resolveProject(d.db, ctx, asked) : null;
      const rows = await visibleWarehouses(d.db, ctx, project ? 'AND w.project_id = $3' : '', project ? [project.id] : []);
      res.json({
        project: project?.name ?? null,
        project_id: project?.id ?? null,
        catalog_uri: d.config.catalogUrl,
        warehouses: rows.map((w) => warehouseListRow(d.config, w)),
        count: rows.length,
        limit: FREE_PLAN.warehouses_per_project,
        headroom: project ? Math.max(0, FREE_PLAN.warehouses_per_project - (await countedInProject(d.db, project.id))) : null,
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id', {
    get: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.db, req.access!, String(req.params.warehouse_id));
      res.json(warehouseGetRow(d.config, w, await placementOf(d, w.projectId)));
    }],
    // Deletion and teardown come with a later issue; the caller is authenticated first, as on every caller route.
    delete: [...d.authed, () => { throw notImplemented('warehouse deletion'); }],
    patch: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.db, ctx, String(req.params.warehouse_id));
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length === 0) {
        throw badRequest('missing_field', 'send {"default_format_version": 2|3}', { field: 'default_format_version' });
      }
      const unknown = Object.keys(body).filter((k) => k !== 'default_format_version');
      if (unknown.length) {
        throw badRequest('invalid_field', `${unknown.join(', ')} cannot be changed here`, { field: unknown[0], accepts: ['default_format_version'] });
      }
      const next = parseFormatVersion(body.default_format_version);
      await requireLevel(d.db, w, 'write', 'changing a catalog setting');
      const previous = w.defaultFormatVersion;
      const changed = next !== previous;
      if (changed) {
        await d.db.query(`UPDATE warehouses SET default_format_version = $2 WHERE id = $1`, [w.id, next]);
        await writeAudit(d.db, req, {
          action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
          data: { changes: { default_format_version: next }, previous: { default_format_version: previous } },
        });
      }
      const fresh = (await resolveWarehouse(d.db, ctx, w.id));
      res.json({
        ...warehouseGetRow(d.config, fresh, await placementOf(d, w.projectId)),
        updated: changed ? ['default_format_version'] : [],
        previous: { default_format_version: previous },
        format: formatInfo(next),
        note: changed ? FORMAT_NOTE : `default_format_version was already ${next}; nothing changed. ${FORMAT_NOTE}`,
      });
    }],
  });
}

async function placementOf(d: ControlPlaneDeps, projectId: string): Promise<{ provider: string; region: string }> {
  const { rows } = await d.db.query<{ provider: string; region: string }>(`SELECT provider, region FROM projects WHERE id = $1`, [projectId]);
  return rows[0] ?? { provider: d.config.provider, region: d.config.region };
}
