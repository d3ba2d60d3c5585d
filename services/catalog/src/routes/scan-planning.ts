import type { Express, Request, Response } from 'express';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { tableName } from '../domain/engine-audit';
import { cancelPlan, completedTasks, planOf, submitPlan, taskPage, type PlanRecord } from '../domain/scan-plan-runs';
import { badRequest } from '../errors';
import { requirePrefix } from '../guards';
import { existingTable, namespaceOf, warehouseOf } from '../request';
import { vendedCredential, wantsVendedCredentials } from '../responses';

// Server-side scan planning: planTableScan, fetchPlanningResult,
// cancelPlanning and fetchScanTasks (domain/scan-plan-runs.ts holds a plan's
// life, domain/scan-plan.ts the planning). Read access is enough for all
// four; the credentials a plan vends are read-only and confined to the
// planned files' common prefix.

export function mountScanPlanning(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();

  /** The table the path names (404 NoSuchTableException), with its dotted name. */
  const tableOf = async (req: Request) => {
    const ns = namespaceOf(req);
    const t = await existingTable(d.db, req, ns, String(req.params.table));
    return { t, name: tableName(ns, t.name) };
  };

  /** A completed answer; read-only credentials for the planned files when asked for. The tasks are JSON text with exact 64-bit values: spliced, not re-serialised. */
  async function sendCompleted(req: Request, res: Response, table: string, planId: string, record: PlanRecord, head: Record<string, unknown>): Promise<void> {
    const wh = warehouseOf(req);
    const body: Record<string, unknown> = { ...head, status: 'completed' };
    if (wantsVendedCredentials(req, wh) && record.prefix) body['storage-credentials'] = [await vendedCredential(d, req, wh, record.prefix, table, 'read')];
    const tasks = await completedTasks(d, planId, record);
    res.status(200).type('application/json').send(`${JSON.stringify(body).slice(0, -1)},${tasks.slice(1)}`);
  }

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/plan', {
    post: [auth, requirePrefix, async (req, res) => {
      const { t, name } = await tableOf(req);
      const { planId, record } = await submitPlan(d, warehouseOf(req), { id: t.id, metadataLocation: t.metadataLocation! }, req.body);
      if (record.status === 'submitted') {
        res.status(200).json({ status: 'submitted', 'plan-id': planId });
        return;
      }
      await sendCompleted(req, res, name, planId, record, { 'plan-id': planId });
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/plan/:planId', {
    get: [auth, requirePrefix, async (req, res) => {
      const { t, name } = await tableOf(req);
      const planId = String(req.params.planId);
      const record = await planOf(d, req.catalogCaller!.warehouseId, t.id, planId);
      if (record.status === 'completed') return sendCompleted(req, res, name, planId, record, {});
      res.status(200).json(record.status === 'failed' ? { status: 'failed', error: record.error } : { status: record.status });
    }],
    delete: [auth, requirePrefix, async (req, res) => {
      const { t } = await tableOf(req);
      const planId = String(req.params.planId);
      await cancelPlan(d, planId, await planOf(d, req.catalogCaller!.warehouseId, t.id, planId));
      res.status(204).end();
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/tasks', {
    post: [auth, requirePrefix, async (req, res) => {
      const { t } = await tableOf(req);
      const task = (req.body as Record<string, unknown> | undefined)?.['plan-task'];
      if (typeof task !== 'string' || !task) throw badRequest('Invalid request: plan-task is required (a string)');
      res.status(200).type('application/json').send(await taskPage(d, req.catalogCaller!.warehouseId, t.id, task));
    }],
  });
}
