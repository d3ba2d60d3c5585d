import type { Request } from 'express';
import type { Logger, SqlClient } from '@floe/http';
import { writeAudit, writeAuditCoalesced } from '@floe/http';

// What engines do through the Iceberg REST endpoint, in the audit log (spec:
// Events `table.create`, `table.update`, `credentials.vend`; a drop is
// `table.delete`, as the control plane's DELETE /v1/table records it). The
// actor is the catalog credential (its client id). Commits and vended
// credentials come in bursts — an engine appending every few seconds, a
// reader vending per query — so they are coalesced: one row per table,
// credential and minute, counting them. Floe's own deployables acting as the
// warehouse (their token says `floe`) audit their own acts, so nothing here
// is written twice. Written after the answer, never failing it: a lost event
// is logged.

export interface EngineAuditDeps {
  db: SqlClient;
  logger: Logger;
}

export type EngineAct =
  | { action: 'table.create'; table: string; data?: Record<string, unknown> }
  | { action: 'table.delete'; table: string; data?: Record<string, unknown> }
  | { action: 'table.update'; table: string; data?: Record<string, unknown>; coalesce: true }
  | { action: 'credentials.vend'; table: string; data?: Record<string, unknown>; coalesce: true };

export function auditEngineAct(d: EngineAuditDeps, req: Request, act: EngineAct): void {
  const caller = req.catalogCaller;
  if (!caller || caller.floe) return;
  const event = {
    action: act.action, actorId: caller.clientId, actorKind: 'catalog_credential', orgId: caller.warehouse.orgId,
    targetType: 'table', targetId: `${caller.warehouseId}/${act.table}`,
    data: { warehouse_id: caller.warehouseId, table: act.table, via: 'iceberg_rest', ...act.data },
  };
  const written = 'coalesce' in act ? writeAuditCoalesced(d.db, req, event) : writeAudit(d.db, req, event);
  void written.catch((err) => d.logger.warn('an engine act could not be audited', { request_id: req.requestId, action: act.action, err: (err as Error).message }));
}

/** A table's name as the audit shows it: its namespace levels and name, dotted. */
export const tableName = (namespace: string[], name: string): string => [...namespace, name].join('.');
