import { CatalogFailure, dottedLevels, type CatalogClient, type LoadTableResult, type TableIdent } from '@floe/catalog-client';
import { firstRollChanges } from '@floe/ingest';
import type { SinkRollJob } from '@floe/queues';

// A sink's table, through the catalog as the warehouse's own identity: loaded
// with a storage session for its location, and given the first-roll changes
// (packages/ingest sink-table.ts) before the first append.

export const tableOf = (job: SinkRollJob): TableIdent => ({ namespace: dottedLevels(job.namespace), name: job.table_name });

/** The table with a vended storage session; null when it (or its namespace) is gone. */
export async function loadSinkTable(catalog: CatalogClient, job: SinkRollJob): Promise<LoadTableResult | null> {
  try {
    return await catalog.loadTable(job.warehouse_id, tableOf(job), { vend: true });
  } catch (err) {
    if (err instanceof CatalogFailure && (err.type === 'NoSuchTableException' || err.type === 'NoSuchNamespaceException')) return null;
    throw err;
  }
}

/**
 * Makes the first-roll changes unless the table has them; the table as it is
 * afterwards, and whether this roll made them. A writer that changed the
 * schema meanwhile makes the commit refused (409): the table is loaded again
 * and the next roll looks again.
 */
export async function applyFirstRollChanges(catalog: CatalogClient, job: SinkRollJob, loaded: LoadTableResult): Promise<{ loaded: LoadTableResult; applied: boolean }> {
  const changes = firstRollChanges(loaded.metadata);
  if (!changes) return { loaded, applied: false };
  try {
    await catalog.commitTable(job.warehouse_id, tableOf(job), changes);
  } catch (err) {
    if (!(err instanceof CatalogFailure && err.status === 409)) throw err;
  }
  return { loaded: (await loadSinkTable(catalog, job))!, applied: true };
}
