import { findTable, findTableAtGate, getNamespace } from '@floe/catalog-store';
import { commitGateKey, passCommitGate } from '@floe/db/commit-gate';
import type { Logger } from '@floe/http';
import type { TableRequirement, TableUpdate } from '@floe/iceberg';
import type { MaintenanceOnCommit } from '@floe/queues';
import { commitFailed, stageCommit, type CommitDeps, type StagedCommit } from '../commit';
import { noSuchNamespace, noSuchTable } from '../errors';
import type { WarehouseRow } from '../store/warehouses';

// POST …/tables/{table} and POST …/transactions/commit: each table's commit
// is resolved and staged here (commit.ts checks, applies and writes its file),
// then the route swaps every staged pointer at once (commit.ts finishCommits).
// This is the catalog's hot path (bench/catalog): one table lookup (with the
// gate's first look folded in when gated), then the commit itself.

/**
 * Checks one table's commit and stages it (its file written, its pointer not yet swapped).
 * `gated`: the commit first waits while a maintenance run holds the table's commit gate
 * (packages/db commit-gate.ts); the holder's own commits say so and go on.
 */
export async function stageTableCommit(
  d: CommitDeps, wh: WarehouseRow, ns: string[], name: string, parts: { requirements: TableRequirement[]; updates: TableUpdate[] }, gated: boolean,
): Promise<StagedCommit> {
  const { requirements } = parts;
  const row = gated ? await findPastGate(d, wh, ns, name) : await findTable(d.db, wh.id, ns, name);
  const creating = requirements.some((r) => r.type === 'assert-create');
  // A missing namespace is a missing table here, as the reference server answers.
  if (!row && !creating) throw noSuchTable(ns, name);
  if (row && creating) throw commitFailed(`Requirement failed: table ${[...ns, name].join('.')} already exists`);
  if (!row && !(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
  return stageCommit(d, wh, row, parts, { namespace: ns, name });
}

/**
 * The table once its commit gate is free: the first look rides on the table's
 * read; only while a run holds the gate does the commit wait, then read again.
 */
async function findPastGate(d: CommitDeps, wh: WarehouseRow, ns: string[], name: string) {
  const gate = { warehouseId: wh.id, namespace: ns, name };
  const first = await findTableAtGate(d.db, wh.id, ns, name, commitGateKey(gate));
  if (first.gateFree) return first.row;
  await passCommitGate(d.db, gate);
  return findTable(d.db, wh.id, ns, name);
}

/** After the answer: a commit that made its table cross a maintenance rule queues the table's run (never delays or fails the commit). */
export function judgeForMaintenance(d: { maintenance: MaintenanceOnCommit; logger: Logger }, wh: WarehouseRow, staged: StagedCommit[]): void {
  for (const c of staged) {
    if (!c.nextLocation) continue;
    void d.maintenance.afterCommit({ warehouseId: wh.id, namespace: c.namespace, name: c.name, metadata: c.next })
      .catch((err) => d.logger.warn('judging a commit for maintenance failed', { warehouse_id: wh.id, err: (err as Error).message }));
  }
}
