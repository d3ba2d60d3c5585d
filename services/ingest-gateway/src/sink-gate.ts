import { conflict, notFound } from '@floe/http';
import type { IntakeSink } from './ledger';

// Whether a sink takes a batch now, the same for every intake route (send
// key, device token, the tool server's internal route), checked before
// anything is read or written.
//
// A sink of a catalog that is being deleted takes nothing from the 202 of
// DELETE /v1/warehouses/{id} on: the catalog is gone for every caller, and its
// storage identity is sealed, so a write would only fail as a 502. The answer
// is the spec's code for a sink that takes nothing (404 `sink_not_found`),
// saying why. The sink row is left as it was, so a restore brings the sink
// back with the catalog, and teardown marks it deleted. The catalog's status
// comes with the sink in the one lookup every intake route makes already
// (ledger.ts `intakeSinkBy`), so the hot path gains no query.

/** Catalog statuses in which its sinks take nothing: being deleted (restorable), and torn down. */
const CATALOG_GONE = new Set(['deleting', 'deleted']);

/** 404 `sink_not_found` while the sink's catalog is being deleted or deleted. */
export function requireCatalogLive(sink: IntakeSink): void {
  if (!CATALOG_GONE.has(sink.warehouse_status)) return;
  const deleting = sink.warehouse_status === 'deleting';
  throw notFound('sink_not_found', deleting
    ? `the catalog of sink ${sink.id} is being deleted; its sinks take nothing unless the catalog is restored`
    : `the catalog of sink ${sink.id} was deleted`, { catalog_state: sink.warehouse_status });
}

/** A deleted sink takes nothing (404), nor one whose catalog is being deleted (404), nor a disabled one (409). */
export function requireOpen(sink: IntakeSink, sinkId: string): void {
  if (sink.state === 'deleted') throw notFound('sink_not_found', `sink ${sinkId} was deleted`);
  requireCatalogLive(sink);
  if (sink.state === 'disabled') throw conflict('sink_disabled', `sink ${sinkId} is disabled`);
}
