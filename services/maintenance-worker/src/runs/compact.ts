import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DataFileInput, EqualityDeleteInput, RewriteRequest } from '@floe/engine';
import {
  currentSchema, danglingAfterRewrite, defaultSortOrderId, deletesForGroup, formatMegabytes, mapLimited, parquetDataFile, partitionLabel, partitionSpecsOf, planBinPack,
  readDeletionVector, sortOrderById, type BinPackGroup, type DataFile, type ScopedFile,
} from '@floe/iceberg';
import { SMALL_FILE_RATIO, targetFileBytes } from '@floe/queues';
import { readHeadFiles, type LiveFile } from './head';
import { capped, maybeCrash, type KindOutcome, type KindPlan, type KindRunner, type RunContext } from './kind';
import { commitReplace } from './replace-commit';
import type { TableAccess } from '@floe/catalog-client';

// Compaction (Iceberg's rewrite-data-files, bin-pack): in each partition with
// at least 5 data files under 75% of the target size, the small files are
// rewritten by the engine into files near the target (packages/engine),
// with every delete that applies to them — position deletes, equality
// deletes, deletion vectors — applied, so no deleted row comes back; v3 row
// lineage kept; the table's sort order honoured. One `replace` snapshot
// removes the old files (and the position deletes and deletion vectors that
// named only them) and adds the new ones, built on the head the plan read or,
// if only appends came since, on the new head (replace-commit.ts): a sink's
// roll is never lost or doubled and never waits for a compaction. The old
// files stay reachable from older snapshots until snapshot expiry frees them.


/** Inputs fetched at once: a sink table's inputs are many small files, each a round trip. */
export const DOWNLOADS_AT_ONCE = 32;

interface GroupWork {
  group: BinPackGroup;
  files: LiveFile[];
  position: ScopedFile[];
  vectors: ScopedFile[];
  equality: ScopedFile[];
  removable: ScopedFile[];
}

interface CompactPlan extends KindPlan {
  headId: bigint;
  work: GroupWork[];
  /** Delete files the replace removes: those naming only rewritten files, and those nothing that stays is in reach of. */
  removable: ReadonlySet<string>;
}

async function plan(_ctx: RunContext, t: TableAccess): Promise<CompactPlan> {
  const m = t.metadata;
  const target = targetFileBytes(m);
  const head = await readHeadFiles(t);
  if (!head) return { nothing: true, reason: 'the table has no snapshot yet', summary: {}, headId: 0n, work: [], removable: new Set() };
  const bin = planBinPack(head.data.map((f) => ({ dataFile: f.file, specId: f.specId })), { targetFileBytes: target, smallRatio: SMALL_FILE_RATIO });
  const byPath = new Map(head.data.map((f) => [f.file.file_path, f]));
  const unpartitioned = new Set(partitionSpecsOf(m).filter((s) => s.fields.length === 0).map((s) => s['spec-id'] ?? 0));
  const work: GroupWork[] = bin.groups.map((group) => {
    const files = group.files.map((f) => byPath.get(f.file_path)!);
    return { group, files, ...deletesForGroup(files, head.deletes, unpartitioned) };
  });
  const small = formatMegabytes(bin.smallFileBytes);
  const figures = { data_files: head.data.length, small_files: bin.smallFiles, target_file_bytes: target, small_file_bytes: bin.smallFileBytes };
  if (!work.length) {
    const most = bin.partitions[0];
    return {
      nothing: true,
      reason: bin.smallFiles === 0
        ? `no data file under ${small} (75% of the ${formatMegabytes(target)} target)`
        : `${bin.smallFiles} files under ${small}, but no partition holds 5 that pack together (most: ${most.smallFiles} in ${most.label})`,
      summary: figures, headId: head.snapshot['snapshot-id'], work, removable: new Set(), extra: { small_files: bin.smallFiles },
    };
  }
  const inputs = work.flatMap((w) => w.files.map((f) => f.file));
  const bytes = inputs.reduce((n, f) => n + Number(f.file_size_in_bytes), 0);
  const deletes = new Set(work.flatMap((w) => [...w.position, ...w.vectors, ...w.equality].map((d) => d.file.file_path)));
  const named = new Set(work.flatMap((w) => w.removable.map((d) => d.file.file_path)));
  // The other deletes the rewrite applies go too once nothing that stays is in their reach.
  const applied = work.flatMap((w) => [...w.position, ...w.equality]).filter((d) => !named.has(d.file.file_path));
  const dangling = danglingAfterRewrite(applied, head.data, new Set(inputs.map((f) => f.file_path)), unpartitioned);
  const removable = new Set([...named, ...dangling.map((d) => d.file.file_path)]);
  return {
    nothing: false,
    reason: `${[...new Set(work.map((w) => w.group.trigger))].join('; ')}: ${inputs.length} files (${formatMegabytes(bytes)}) rewritten in ${work.length} groups of at most ${formatMegabytes(target)}`
      + (deletes.size ? `, applying ${deletes.size} delete files` : ''),
    summary: {
      ...figures,
      groups: work.map((w) => ({ partition: partitionLabel(w.group.partition), files: w.files.length, bytes: w.group.inputBytes, delete_files: w.position.length + w.vectors.length + w.equality.length })),
      files_to_rewrite: { count: inputs.length, bytes, ...capped(inputs.map((f) => f.file_path)) },
      delete_files_applied: deletes.size,
      delete_files_to_remove: { count: removable.size, ...capped([...removable]) },
    },
    headId: head.snapshot['snapshot-id'],
    work,
    removable,
    // What the health view shows until the next compaction looks (the new files may be small too; they are counted then).
    extra: { small_files: bin.smallFiles - inputs.length },
  };
}

async function apply(ctx: RunContext, t: TableAccess, p: CompactPlan): Promise<KindOutcome> {
  const m = t.metadata;
  const engine = await ctx.engine();
  const dir = join(engine.scratchDir, `compact-${randomUUID()}`);
  const schema = currentSchema(m);
  const sortOrder = sortOrderById(m, defaultSortOrderId(m));
  const sorted = sortOrder && sortOrder.fields.length ? sortOrder : undefined;
  const uploaded: string[] = [];
  const add: { specId: number; file: DataFile }[] = [];
  const uploads: Promise<void>[] = [];
  const local = new Map<string, Promise<string>>();
  try {
    // A group's inputs are fetched, many at a time, while the group before it is rewritten;
    // its data files go from the scratch directory once it is (delete files may serve several
    // groups and stay to the end). Each group's outputs are uploaded while the next group is
    // rewritten, and all are in the store before the commit.
    const fetch = (path: string) => {
      let at = local.get(path);
      if (!at) {
        const localPath = join(dir, 'in', `${local.size}.parquet`);
        local.set(path, (at = t.download(path, localPath).then(() => localPath)));
        at.catch(() => undefined); // awaited where the group needs it
      }
      return at;
    };
    const prefetch = (w: GroupWork | undefined) => {
      if (!w) return Promise.resolve([]);
      const fetched = mapLimited([...w.files, ...w.position, ...w.equality], DOWNLOADS_AT_ONCE, (f) => fetch(f.file.file_path));
      fetched.catch(() => undefined); // awaited when its group's turn comes
      return fetched;
    };
    let next = prefetch(p.work[0]);
    for (const [g, w] of p.work.entries()) {
      await next;
      next = prefetch(p.work[g + 1]);
      const files: DataFileInput[] = [];
      for (const f of w.files) files.push({ localPath: await fetch(f.file.file_path), filePath: f.file.file_path, sequenceNumber: f.sequenceNumber, firstRowId: f.firstRowId });
      const rows: { file_path: string; pos: bigint }[] = [];
      for (const v of w.vectors) {
        const blob = await t.readRange(v.file.file_path, Number(v.file.content_offset ?? 0), Number(v.file.content_size_in_bytes ?? 0));
        for (const pos of readDeletionVector(blob)) rows.push({ file_path: v.file.referenced_data_file!, pos });
      }
      const equality: EqualityDeleteInput[] = [];
      for (const e of w.equality) equality.push({ localPath: await fetch(e.file.file_path), equalityIds: e.file.equality_ids ?? [], sequenceNumber: e.sequenceNumber });
      const request: RewriteRequest = {
        schema, files,
        positionDeletes: { rows, localPaths: await Promise.all(w.position.map((d) => fetch(d.file.file_path))) },
        equalityDeletes: equality,
        targetFileSizeBytes: targetFileBytes(m), outputDir: join(dir, 'out'), prefix: `g${g}`,
        sortOrder: sorted, rowLineage: m['format-version'] >= 3,
      };
      for (const out of await engine.rewriteDataFiles(request)) {
        const path = `${t.location}/data/compacted-${randomUUID()}.parquet`;
        uploaded.push(path);
        const upload = t.upload(out.localPath, path).then(() => rm(out.localPath, { force: true }));
        upload.catch(() => undefined); // awaited below; a failure while a later group rewrites must not go unhandled
        uploads.push(upload);
        add.push({ specId: w.group.specId, file: parquetDataFile(path, out.stats, w.group.partition, sorted?.['order-id']) });
      }
      await Promise.all(w.files.map(async (f) => rm(await fetch(f.file.file_path), { force: true })));
    }
    await Promise.all(uploads);
    maybeCrash(ctx, 'after_files');
    const remove = new Set([...p.work.flatMap((w) => w.files.map((f) => f.file.file_path)), ...p.removable]);
    const committed = await commitReplace(ctx, t, p.headId, { remove, add, summary: { 'engine-name': 'floe-maintenance', 'floe.maintenance': 'compact' } }, uploaded);
    return { freedBytes: 0, snapshotId: committed.snapshotId };
  } finally {
    // Nothing still writing into the scratch directory when it goes.
    await Promise.allSettled([...local.values(), ...uploads]);
    await rm(dir, { recursive: true, force: true });
  }
}

export const compact: KindRunner<CompactPlan> = { plan, apply };
