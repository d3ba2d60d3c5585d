import { MAINTENANCE_DEFAULTS } from '@floe/queues';
import {
  MAIN_BRANCH, collectSnapshotFiles, planSnapshotExpiry, refsOf, unreachableFiles, type ExpiryPlan, type UnreachableFiles, type Snapshot, type TableMetadata,
} from '@floe/iceberg';
import { PlanOutdated, capped, maybeCrash, type KindOutcome, type KindPlan, type KindRunner, type RunContext } from './kind';
import { onlyAppendsSince } from './head';
import { commitInTurn } from './turns';
import type { TableAccess } from '@floe/catalog-client';

// Snapshot expiry (Iceberg's expire-snapshots): the catalog's promise of 7
// days and 20 snapshots (MAINTENANCE_DEFAULTS), under the table's own
// history.expire.* properties and each ref's retention (the planner,
// packages/iceberg maintenance/expiry.ts). The commit removes the snapshots
// and expired refs with requirements on every ref the plan read; only after
// it landed are the files that expired snapshots alone reached removed —
// judged against the snapshots of the metadata the commit answered, so a
// snapshot committed meanwhile keeps its files. A crash between the commit
// and the removals leaves files no metadata names: the orphan pass removes
// them later.

const DAY_MS = 86_400_000;

interface ExpiryRunPlan extends KindPlan {
  expiry: ExpiryPlan;
}

const defaults = {
  maxSnapshotAgeMs: MAINTENANCE_DEFAULTS.snapshot_retention_days * DAY_MS,
  minSnapshotsToKeep: 1,
  maxSnapshots: MAINTENANCE_DEFAULTS.max_snapshots,
  maxRefAgeMs: null,
};

const snapshotsIn = (m: TableMetadata, ids: Set<bigint>, keep: boolean): Snapshot[] =>
  (m.snapshots ?? []).filter((s) => ids.has(s['snapshot-id']) === keep);

async function plan(ctx: RunContext, t: TableAccess): Promise<ExpiryRunPlan> {
  const expiry = planSnapshotExpiry(t.metadata, { nowMs: ctx.nowMs, defaults });
  if (expiry.updates.length === 0) {
    return { nothing: true, reason: `nothing to expire: ${expiry.retained.length} snapshots, all within the retention rules`, summary: { retained: expiry.retained.length }, expiry };
  }
  const reasons = [...new Set(expiry.expired.map((e) => e.reason))];
  const summary: Record<string, unknown> = {
    expire_snapshot_ids: expiry.expiredSnapshotIds.map(String),
    expired: expiry.expired.map((e) => ({ snapshot_id: String(e.snapshotId), timestamp_ms: Number(e.timestampMs), reason: e.reason })),
    retained: expiry.retained.map((r) => ({ snapshot_id: String(r.snapshotId), reason: r.reason })),
    remove_refs: expiry.removedRefs.map((r) => ({ name: r.name, type: r.type, snapshot_id: String(r.snapshotId), reason: r.reason })),
  };
  let reason = `${expiry.expired.length} of ${(t.metadata.snapshots ?? []).length} snapshots expired (${reasons.join('; ')})`
    + (expiry.removedRefs.length ? `, ${expiry.removedRefs.length} refs removed` : '');
  // What the files would be if nothing else committed: the dry run's answer. A real run finds them in its apply, once.
  if (ctx.dryRun) {
    const gone = new Set(expiry.expiredSnapshotIds);
    const collect = (snaps: Snapshot[]) => collectSnapshotFiles(snaps, t.read, { metadata: t.metadata });
    const files = unreachableFiles(await collect(snapshotsIn(t.metadata, gone, true)), await collect(snapshotsIn(t.metadata, gone, false)));
    reason += `; ${onlyTheyReached(files)}`;
    summary.files_to_remove = { count: files.paths.length, bytes: files.bytes, data_files: files.dataFiles.length, delete_files: files.deleteFiles.length, manifests: files.manifests.length, manifest_lists: files.manifestLists.length, ...capped(files.paths) };
  }
  return { nothing: false, reason, summary, expiry };
}

const onlyTheyReached = (files: UnreachableFiles) => `${files.paths.length} files only they reached`;

async function apply(ctx: RunContext, t: TableAccess, p: ExpiryRunPlan): Promise<KindOutcome> {
  const before = t.metadata;
  // The expired snapshots' files are read before the commit drops them from the metadata.
  const gone = new Set(p.expiry.expiredSnapshotIds);
  const expired = await collectSnapshotFiles(snapshotsIn(before, gone, true), t.read, { metadata: before });
  const committed = await commitExpiry(ctx, t, p);
  // Judged against what the table holds now, concurrent commits included.
  const retained = await collectSnapshotFiles(committed.metadata.snapshots ?? [], t.read, { metadata: committed.metadata });
  const files = unreachableFiles(expired, retained);
  maybeCrash(ctx, 'after_commit');
  if (ctx.crashAt === 'mid_expiry') {
    await t.remove(files.paths.slice(0, Math.ceil(files.paths.length / 2)));
    maybeCrash(ctx, 'mid_expiry');
  }
  await t.remove(files.paths);
  return { freedBytes: files.bytes, snapshotId: null, detail: onlyTheyReached(files) };
}

/**
 * Commits the expiry with a requirement on every ref the plan read. Appends
 * to main since the plan change nothing it decided (they only add newer
 * snapshots, which it keeps), so main's requirement follows them, and after
 * a lost race the attempts hold the table's commit gate (turns.ts); anything
 * else means planning again — and so does a branch or tag made or removed
 * since (remove-snapshots drops every ref to a removed snapshot, and no
 * requirement can name a ref the plan did not see).
 */
async function commitExpiry(ctx: RunContext, t: TableAccess, p: ExpiryRunPlan) {
  const id = { namespace: t.ref.namespace, name: t.ref.table };
  const plannedMain = refsOf(t.metadata)[MAIN_BRANCH]?.['snapshot-id'];
  const names = (m: TableMetadata) => Object.keys(refsOf(m)).sort().join('\u0000');
  const { value } = await commitInTurn(ctx, t.ref, async (n, headers) => {
    const latest = n === 1 ? t.metadata : (await ctx.catalog.loadTable(t.ref.warehouseId, id)).metadata;
    if (names(latest) !== names(t.metadata)) throw new PlanOutdated('a branch or tag was made or removed since the plan');
    const main = refsOf(latest)[MAIN_BRANCH]?.['snapshot-id'];
    if (main !== plannedMain && (plannedMain === undefined || !onlyAppendsSince(latest, plannedMain))) throw new PlanOutdated('main changed since the plan other than by appends');
    const requirements = p.expiry.requirements.map((r) => (r.type === 'assert-ref-snapshot-id' && r.ref === MAIN_BRANCH ? { ...r, 'snapshot-id': main ?? null } : r));
    return ctx.catalog.commitTable(t.ref.warehouseId, id, { requirements, updates: p.expiry.updates }, headers);
  });
  return value;
}

export const expireSnapshots: KindRunner<ExpiryRunPlan> = { plan, apply };
