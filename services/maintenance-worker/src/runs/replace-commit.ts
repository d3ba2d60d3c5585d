import { randomUUID } from 'node:crypto';
import {
  MAIN_BRANCH, StaleReplace, buildReplace, currentSchema, currentSnapshot, lastSequenceNumber, newSnapshotId, specById,
  type ReplaceOptions,
} from '@floe/iceberg';
import { manifestTargetBytes } from '@floe/queues';
import { onlyAppendsSince } from './head';
import { PlanOutdated, type RunContext } from './kind';
import { MAX_COMMIT_ATTEMPTS, commitInTurn, lostRace } from './turns';
import type { TableAccess } from '@floe/catalog-client';

// How compaction and the manifest rewrite commit: a `replace` snapshot built
// on the head the plan read, committed through the catalog with a
// requirement on that head. When a writer committed first (a sink's roll, an
// engine's append), the catalog refuses (409); if only appends came between,
// the same replace is rebuilt on the new head — the files it removes are
// still live there, the appended ones are carried as they are — and tried
// again, holding the table's commit gate so writers wait for it (turns.ts);
// anything else (a delete, an overwrite, another replace) means the plan is
// outdated. Nothing this run wrote is left behind when it gives up:
// the files of each refused attempt are removed. A commit whose answer was
// lost (a timeout, a 5xx) may have landed, so then nothing is removed: the
// orphan pass judges those files later, as it does a crash's.

export type ReplaceParts = Pick<ReplaceOptions, 'remove' | 'add' | 'merge' | 'summary'>;

export interface ReplaceCommitted {
  snapshotId: bigint;
  manifests: { before: number; after: number };
  attempts: number;
}

/** Commits the replace; `written` are the data files the run already uploaded (removed if it gives up). */
export async function commitReplace(ctx: RunContext, t: TableAccess, plannedHead: bigint, parts: ReplaceParts, written: string[] = []): Promise<ReplaceCommitted> {
  const leftovers = [...written];
  const id = { namespace: t.ref.namespace, name: t.ref.table };
  try {
    const { value, attempts } = await commitInTurn(ctx, t.ref, async (n, headers) => {
      const m = n === 1 ? t.metadata : (await ctx.catalog.loadTable(t.ref.warehouseId, id)).metadata;
      if (n > 1 && !onlyAppendsSince(m, plannedHead)) throw new PlanOutdated('another writer removed or rewrote files since the plan');
      const head = currentSnapshot(m);
      if (!head) throw new PlanOutdated('the table has no snapshot any more');
      const snapshotId = newSnapshotId();
      let built;
      try {
        built = await buildReplace({
          ...parts,
          formatVersion: m['format-version'], schema: currentSchema(m), spec: (specId) => specById(m, specId),
          parent: head, lastSequenceNumber: lastSequenceNumber(m), nextRowId: m['format-version'] >= 3 ? m['next-row-id'] ?? 0n : undefined,
          snapshotId, read: t.read, targetManifestBytes: manifestTargetBytes(m),
          manifestPath: (i) => `${t.location}/metadata/${randomUUID()}-r${i}.avro`,
          manifestListPath: `${t.location}/metadata/snap-${snapshotId}-${randomUUID()}.avro`,
        });
      } catch (err) {
        if (err instanceof StaleReplace) throw new PlanOutdated(err.message);
        throw err;
      }
      await Promise.all(built.uploads.map((u) => t.put(u.path, u.bytes)));
      try {
        await ctx.catalog.commitTable(t.ref.warehouseId, id, {
          requirements: [{ type: 'assert-ref-snapshot-id', ref: MAIN_BRANCH, 'snapshot-id': head['snapshot-id'] }],
          updates: [
            { action: 'add-snapshot', snapshot: built.snapshot },
            { action: 'set-snapshot-ref', 'ref-name': MAIN_BRANCH, type: 'branch', 'snapshot-id': snapshotId },
          ],
        }, headers);
      } catch (err) {
        // Refused: this attempt's files are no one's. Any other failure may have landed with its answer lost: they stay.
        if (lostRace(err)) await t.remove(built.uploads.map((u) => u.path)).catch(() => undefined);
        throw err;
      }
      return { snapshotId, manifests: built.manifests };
    });
    leftovers.length = 0;
    return { ...value, attempts };
  } catch (err) {
    // The commit may have landed with its answer lost: nothing written may go (the orphan pass judges later).
    if (!(err instanceof PlanOutdated || lostRace(err))) leftovers.length = 0;
    if (lostRace(err)) throw new PlanOutdated(`the table's head moved ${MAX_COMMIT_ATTEMPTS} times while this run committed`);
    throw err;
  } finally {
    if (leftovers.length) await t.remove(leftovers).catch(() => undefined);
  }
}
