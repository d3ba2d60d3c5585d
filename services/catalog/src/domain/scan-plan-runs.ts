import { parseS3Location } from '@floe/storage';
import type { ReadObject, ScanTask } from '@floe/iceberg';
import type { CatalogDeps } from '../deps';
import { IcebergError } from '../errors';
import { readTableMetadata } from '../metadata-files';
import type { PlanRecord } from '../store/scan-plans';
import type { WarehouseRow } from '../store/warehouses';
import { commonPrefix, filesListed, parseScanRequest, planScan, scanPages, scanScope, scopeManifests, withinTable, type ScanScope } from './scan-plan';

// A scan plan's life (routes/scan-planning.ts): submitted, planned now or in
// the background, its pages kept (store/scan-plans.ts) for fetchPlanningResult
// and fetchScanTasks, cancelled. A plan belongs to its warehouse and table:
// any other asks for a plan id or task that does not exist.

/** A plan still `submitted` this long after it began is reported failed: the process planning it stopped. */
const PLAN_DEADLINE_MS = 10 * 60_000;

export type { PlanRecord };

type PlanDeps = Pick<CatalogDeps, 'storage' | 'metadata' | 'scanPlans' | 'config' | 'logger'>;

/** Reads the table's objects as the warehouse's read-only identity, nothing outside the table's location. */
function readerFor(d: PlanDeps, wh: WarehouseRow, tableLocation: string): ReadObject {
  const store = d.storage.objectsAs(wh.ro);
  return withinTable(async (path) => {
    const { bucket, key } = parseS3Location(path, 'read a manifest');
    return new Uint8Array(await store.getBytes(bucket, key));
  }, tableLocation);
}

/** Plans, stores the pages and marks the plan completed (or failed, with the error planning ended in). */
async function runPlan(d: PlanDeps, planId: string, record: PlanRecord, plan: () => Promise<ScanTask[]>, scope: ScanScope): Promise<void> {
  try {
    const tasks = await plan();
    await d.scanPlans.complete(planId, record, scanPages(tasks, scope, d.config.scanPlanning.pageTasks), commonPrefix(tasks));
  } catch (err) {
    const e = err instanceof IcebergError ? err : new IcebergError(500, 'InternalServerError', 'Scan planning failed unexpectedly');
    if (!(err instanceof IcebergError)) d.logger.error('scan planning failed', { plan_id: planId, err });
    await d.scanPlans.fail(planId, record, { code: e.status, type: e.type, message: e.message });
    throw e;
  }
}

/**
 * planTableScan: the request checked (400s before anything is kept), then the
 * plan planned now — answered with its record — or, when the snapshot lists
 * more than FLOE_SCAN_PLAN_SYNC_FILES files, in the background (`submitted`).
 */
export async function submitPlan(
  d: PlanDeps, wh: WarehouseRow, table: { id: string; metadataLocation: string }, body: unknown,
): Promise<{ planId: string; record: PlanRecord }> {
  const scope = scanScope(await readTableMetadata(d, wh, table.metadataLocation), parseScanRequest(body));
  const read = readerFor(d, wh, scope.metadata.location);
  const head = await scopeManifests(read, scope);
  const { planId, record } = await d.scanPlans.create(wh.id, table.id);
  const plan = () => planScan(read, scope, head);
  if (filesListed(head) > d.config.scanPlanning.syncFiles) {
    runPlan(d, planId, record, plan, scope).catch(() => { /* recorded as the plan's failure */ });
    return { planId, record };
  }
  await runPlan(d, planId, record, plan, scope);
  return { planId, record: (await d.scanPlans.get(planId))! };
}

/** The plan of this table; 404 NoSuchPlanIdException otherwise (another table's plan included). A stale `submitted` reads as failed. */
export async function planOf(d: PlanDeps, warehouseId: string, tableId: string, planId: string): Promise<PlanRecord> {
  const record = await d.scanPlans.get(planId);
  if (!record || record.warehouseId !== warehouseId || record.tableId !== tableId) {
    throw new IcebergError(404, 'NoSuchPlanIdException', `Plan ${planId} does not exist for this table`);
  }
  if (record.status === 'submitted' && Date.now() - record.startedAt > PLAN_DEADLINE_MS) {
    return { ...record, status: 'failed', error: { code: 503, type: 'ServiceUnavailableException', message: 'Planning did not finish: the catalog process planning it stopped. Submit the scan again.' } };
  }
  return record;
}

/** A completed plan's tasks as ScanTasks JSON text: its only page inline, or its plan tasks. */
export async function completedTasks(d: PlanDeps, planId: string, record: PlanRecord): Promise<string> {
  const pages = record.pages ?? 0;
  if (pages === 1) {
    const page = await d.scanPlans.page(planId, 0);
    if (page === null) throw new IcebergError(404, 'NoSuchPlanIdException', `Plan ${planId} has expired`);
    return page;
  }
  if (pages > 1) return JSON.stringify({ 'plan-tasks': Array.from({ length: pages }, (_, i) => `${planId}:${i}`) });
  return '{"delete-files":[],"file-scan-tasks":[]}';
}

export async function cancelPlan(d: PlanDeps, planId: string, record: PlanRecord): Promise<void> {
  await d.scanPlans.cancel(planId, record);
}

/** fetchScanTasks: one page of a completed plan of this table; 404 NoSuchPlanTaskException for anything else. */
export async function taskPage(d: PlanDeps, warehouseId: string, tableId: string, task: string): Promise<string> {
  const noSuchTask = () => new IcebergError(404, 'NoSuchPlanTaskException', `Plan task ${task} does not exist for this table`);
  const m = /^([0-9a-f-]{36}):(\d{1,9})$/.exec(task);
  if (!m) throw noSuchTask();
  const record = await d.scanPlans.get(m[1]);
  if (!record || record.status !== 'completed' || record.warehouseId !== warehouseId || record.tableId !== tableId) throw noSuchTask();
  const page = Number(m[2]) < (record.pages ?? 0) ? await d.scanPlans.page(m[1], Number(m[2])) : null;
  if (page === null) throw noSuchTask();
  return page;
}
