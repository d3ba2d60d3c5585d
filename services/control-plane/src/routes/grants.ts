import type { Express } from 'express';
import { PutWarehouseGrantBody } from '@floe/api';
import { resolveWarehouse } from '@floe/catalogs';
import { parse, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { listGrants, putGrant, revokeGrant } from '../domain/warehouses/grants';

// Spec: Grants (the rules, and the audit events written with each change, are in domain/warehouses/grants.ts).

export function mountGrants(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses/:warehouse_id/grants', {
    get: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      res.json(await listGrants(d.prisma, w));
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/grants/:principal_id', {
    put: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.prisma, ctx, String(req.params.warehouse_id));
      const body = parse(PutWarehouseGrantBody, req.body);
      const { target } = await putGrant(d, req, ctx, w, String(req.params.principal_id), body.level);
      res.json({ warehouse_id: w.id, principal_id: target.principalId, kind: target.kind, display: target.display, level: body.level, via: 'grant', granted_by: ctx.principalId });
    }],
    delete: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.prisma, ctx, String(req.params.warehouse_id));
      const { target, before, after } = await revokeGrant(d, req, ctx, w, String(req.params.principal_id));
      res.json({
        warehouse_id: w.id, principal_id: target.principalId, kind: target.kind, display: target.display,
        revoked: { level: before.level, via: before.via }, level: after.level, via: after.via,
      });
    }],
  });
}
