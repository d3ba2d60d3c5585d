import { collectSnapshotFiles, liveFiles, planOrphans, type ListedFile } from '@floe/iceberg';
import { capped, type KindOutcome, type KindPlan, type KindRunner, type RunContext } from './kind';
import type { TableAccess } from '@floe/catalog-client';

// Orphan files: objects under the table's location that no snapshot, no
// metadata file and no statistics file of the table names, and that are
// older than the orphan age (3 days: a writer may still be about to commit a
// file it wrote) — left by writers that died before their commit, or a run
// that died between its commit and its removals. The live set is built from
// every snapshot the table has (packages/iceberg maintenance/orphans.ts);
// the removals happen with the table's own storage session.

interface OrphanRunPlan extends KindPlan {
  candidates: ListedFile[];
}

async function plan(ctx: RunContext, t: TableAccess): Promise<OrphanRunPlan> {
  const collected = await collectSnapshotFiles(t.metadata.snapshots ?? [], t.read, { metadata: t.metadata });
  const live = liveFiles(t.metadata, collected, { metadataLocation: t.loaded['metadata-location'] ?? null });
  const listed = (await t.list()).map((o) => ({ path: o.path, size: o.size, lastModified: o.lastModified ?? new Date(ctx.nowMs) }));
  const orphans = planOrphans({ listed, live, location: t.location, nowMs: ctx.nowMs, olderThanMs: ctx.orphanAgeMs });
  const days = ctx.orphanAgeMs / 86_400_000;
  const age = days >= 1 ? `${days} days` : `${Math.round(ctx.orphanAgeMs / 1000)} s`;
  return {
    nothing: orphans.candidates.length === 0,
    reason: orphans.candidates.length === 0
      ? `no orphan files: ${listed.length} objects under the location, ${live.size} named by metadata${orphans.tooNew ? `, ${orphans.tooNew} unnamed but younger than ${age}` : ''}`
      : `${orphans.candidates.length} files under the location that no metadata names, older than ${age} (${orphans.bytes} bytes)`,
    summary: {
      listed: listed.length, live: live.size, too_new: orphans.tooNew, mismatched_scheme: orphans.mismatched,
      files_to_remove: { count: orphans.candidates.length, bytes: orphans.bytes, ...capped(orphans.candidates.map((c) => c.path)) },
    },
    candidates: orphans.candidates,
    // Unnamed files still younger than the orphan age: the next passes' candidates.
    extra: { orphan_candidates: orphans.tooNew },
  };
}

async function apply(_ctx: RunContext, t: TableAccess, p: OrphanRunPlan): Promise<KindOutcome> {
  await t.remove(p.candidates.map((c) => c.path));
  return { freedBytes: p.candidates.reduce((n, c) => n + c.size, 0), snapshotId: null };
}

export const removeOrphans: KindRunner<OrphanRunPlan> = { plan, apply };
