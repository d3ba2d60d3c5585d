import { formatMegabytes, planManifestMerge } from '@floe/iceberg';
import { manifestTargetBytes, minCountToMerge } from '@floe/queues';
import { readHead } from './head';
import { capped, type KindOutcome, type KindPlan, type KindRunner, type RunContext } from './kind';
import { commitReplace } from './replace-commit';
import type { TableAccess } from '@floe/catalog-client';

// The manifest rewrite (Iceberg's rewrite-manifests): every roll adds one
// small manifest, and every commit's manifest list carries them all, so a
// table's commits slow with its age. When a spec has enough data manifests
// under `commit.manifest.target-size-bytes` (packages/queues maintenance-rules.ts), they are merged toward it in one
// `replace` snapshot (entries EXISTING, their snapshot ids and sequence
// numbers kept: no row or delete changes meaning), built and committed as
// compaction's is (replace-commit.ts).

interface ManifestPlan extends KindPlan {
  headId: bigint;
  merge: Set<string>;
}

async function plan(_ctx: RunContext, t: TableAccess): Promise<ManifestPlan> {
  const head = await readHead(t);
  if (!head) return { nothing: true, reason: 'the table has no snapshot yet', summary: {}, headId: 0n, merge: new Set() };
  const target = manifestTargetBytes(t.metadata);
  const minCount = minCountToMerge(t.metadata);
  const merged = planManifestMerge(head.manifests, { targetBytes: target, minCountToMerge: minCount });
  const figures = { manifests: head.manifests.length, small_manifests: merged.smallManifests, delete_manifests: merged.deleteManifests, target_manifest_bytes: target, min_count_to_merge: minCount };
  const merge = new Set(merged.groups.flatMap((g) => g.manifests.map((m) => m.manifest_path)));
  if (!merge.size) {
    return {
      nothing: true, reason: `${merged.smallManifests} data manifests under ${formatMegabytes(target)}, fewer than the ${minCount} that are merged`,
      summary: figures, headId: head.snapshot['snapshot-id'], merge,
    };
  }
  const bytes = merged.groups.reduce((n, g) => n + g.inputBytes, 0);
  return {
    nothing: false,
    reason: `${[...new Set(merged.groups.map((g) => g.trigger))].join('; ')}: ${merge.size} manifests (${formatMegabytes(bytes)}) merged toward ${formatMegabytes(target)}`,
    summary: { ...figures, manifests_to_merge: { count: merge.size, bytes, ...capped([...merge]) } },
    headId: head.snapshot['snapshot-id'],
    merge,
  };
}

async function apply(ctx: RunContext, t: TableAccess, p: ManifestPlan): Promise<KindOutcome> {
  const committed = await commitReplace(ctx, t, p.headId, { merge: p.merge, summary: { 'engine-name': 'floe-maintenance', 'floe.maintenance': 'rewrite_manifests' } });
  return { freedBytes: 0, snapshotId: committed.snapshotId };
}

export const rewriteManifests: KindRunner<ManifestPlan> = { plan, apply };
