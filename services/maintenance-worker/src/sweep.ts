import { maintenanceJobs, rulesCrossed, type MaintenanceJob, type Producers } from '@floe/queues';
import type { MaintenanceDeps } from './deps';
import { lastFinished } from './store/runs';
import { tablesOfLiveCatalogs } from './store/tables';
import type { TableRef } from '@floe/catalog-client';

// The hourly sweep: every table of every live catalog is read once (its
// metadata through the catalog) and judged by the rules (rules.ts); a table
// that crossed one gets one `maintain` job for the kinds it needs, keyed by
// the table, so a run already waiting is joined rather than doubled. A table
// the catalog cannot load is logged and left for the next sweep.

const PAGE = 200;
/** The orphan pass runs at most once a day per table (it lists the whole location). */
export const ORPHAN_PASS_EVERY_MS = 86_400_000;

type Deps = Pick<MaintenanceDeps, 'prisma' | 'catalog' | 'logger'> & { producers: Pick<Producers, 'enqueue'> };

/** One sweep: how many tables it read and how many it queued a run for. */
export async function sweepTables(d: Deps, nowMs = Date.now()): Promise<{ tables: number; queued: number }> {
  let tables = 0;
  let queued = 0;
  let after = '';
  for (;;) {
    const page = await tablesOfLiveCatalogs(d.prisma, after, PAGE);
    for (const ref of page.tables) {
      tables += 1;
      if (await queueIfDue(d, ref, nowMs)) queued += 1;
    }
    if (!page.next) break;
    after = page.next;
  }
  return { tables, queued };
}

async function queueIfDue(d: Deps, ref: TableRef, nowMs: number): Promise<boolean> {
  let metadata;
  try {
    metadata = (await d.catalog.loadTable(ref.warehouseId, { namespace: ref.namespace, name: ref.table })).metadata;
  } catch (err) {
    d.logger.warn('the maintenance sweep could not load a table', { warehouse_id: ref.warehouseId, table: `${ref.namespace.join('.')}.${ref.table}`, err: (err as Error).message });
    return false;
  }
  const [lastOrphans, lastLayout] = await Promise.all([lastFinished(d.prisma, ref, 'remove_orphans'), lastFinished(d.prisma, ref, 'compact')]);
  const hits = rulesCrossed(metadata, {
    nowMs, lastOrphanPassMs: lastOrphans?.getTime() ?? null, orphanPassEveryMs: ORPHAN_PASS_EVERY_MS, lastLayoutPassMs: lastLayout?.getTime() ?? null,
  });
  if (hits.length === 0) return false;
  const job: MaintenanceJob = {
    warehouse_id: ref.warehouseId, namespace: ref.namespace, table: ref.table, kinds: hits.map((h) => h.kind),
    trigger: { type: 'sweep', detail: hits.map((h) => `${h.kind}: ${h.detail}`).join('; ') }, requested_by: null,
  };
  await d.producers.enqueue(maintenanceJobs.maintain, job);
  return true;
}
