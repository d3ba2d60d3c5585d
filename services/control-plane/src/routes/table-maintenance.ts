import type { Express } from 'express';
import { requireLevel } from '@floe/accounts';
import { type SameMembers, TableMaintenanceBody, TableMaintenanceKind, TableMaintenanceQuery } from '@floe/api';
import { tableWarehouse } from '@floe/catalogs';
import { parse, route } from '@floe/http';
import type { MaintenanceKind } from '@floe/queues';
import type { ControlPlaneDeps } from '../deps';
import { kindsAsked, requestMaintenance, tableMaintenance } from '../domain/tables/table-maintenance';

// Table maintenance (Floe's shapes, docs/api.md "Maintenance"): GET a
// table's health and runs (read level), POST a run or a dry run (write level).

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

// The document's kinds (packages/api, which cannot import the queue) are the
// queue's: the compiler holds the two lists equal.
const kindsAgree: SameMembers<(typeof TableMaintenanceKind.options)[number], MaintenanceKind> = true;
void kindsAgree;

export function mountTableMaintenance(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/table/maintenance', {
    get: [...d.authed, async (req, res) => {
      const q = parse(TableMaintenanceQuery, { ...req.query, warehouse_id: text(req.query.warehouse_id) ?? text(req.query.warehouse) }, 'query');
      const w = await tableWarehouse(d.prisma, req.access!, q);
      res.json(await tableMaintenance(d, w, q.namespace, q.name));
    }],
    post: [...d.authed, async (req, res) => {
      // validate
      const raw = (req.body ?? {}) as Record<string, unknown>;
      const body = parse(TableMaintenanceBody, { ...raw, warehouse_id: text(raw.warehouse_id) ?? text(raw.warehouse) ?? raw.warehouse_id });
      const kinds = kindsAsked(body.kinds);
      // authorize
      const w = await tableWarehouse(d.prisma, req.access!, body);
      await requireLevel(d.prisma, w, 'write', 'maintaining a table');
      // act and answer
      const out = await requestMaintenance(d, w, body.namespace, body.name, { kinds, dryRun: body.dry_run === true }, { principalId: req.access!.principalId, requestId: req.requestId ?? null });
      res.status(out.status).json(out.body);
    }],
  });
}
