import { GetObjectCommand } from '@aws-sdk/client-s3';
import { type VisibleWarehouse, readWriteKeys } from '@floe/catalogs';
import { toLoadTableResult, type CatalogClient } from '@floe/catalog-client';
import type { PrismaClient } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';
import { HttpError } from '@floe/http';
import { tableFigures, type TableMetadata } from '@floe/iceberg';
import { MAINTENANCE_DEFAULTS, MAINTENANCE_KINDS, MAINTENANCE_RULES, QUEUES, maintenanceJobId, maintenanceJobs, rulesCrossed, type MaintenanceJob, type MaintenanceKind, type Producers } from '@floe/queues';
import { parseS3Location, type StorageProvider } from '@floe/storage';
import { runsOfTable, type MaintenanceRunRecord } from '../../store/maintenance-runs';
import { catalogTables } from './catalog-tables';

// GET and POST /v1/table/maintenance (Floe's shapes, docs/api.md): a table's
// health against the maintenance rules with its runs, newest first, as the
// maintenance worker recorded them; and a run asked for — queued for the
// worker (one per table: a run already waiting is joined), or, as a dry run,
// planned by the worker on the table as it is and answered here, changing
// nothing. The rules and the catalog's promise have one home (packages/queues
// maintenance-rules.ts); the runs' work is the worker's alone.

export interface TableMaintenanceDeps {
  prisma: PrismaClient;
  catalog: CatalogClient;
  storage: Pick<StorageProvider, 's3As'>;
  keyring: Keyring;
  queues: Producers;
}

/** The orphan pass runs once a day per table (the worker's sweep). */
const ORPHAN_PASS_EVERY_MS = 86_400_000;
/** How long a dry run may take before the answer is 503 (the worker plans it). */
const DRY_RUN_WAIT_MS = 25_000;
const RUNS_LISTED = 50;

const levels = (ns: string) => ns.split('.');

async function loadMetadata(d: TableMaintenanceDeps, w: VisibleWarehouse, ns: string, name: string): Promise<TableMetadata> {
  return toLoadTableResult(await catalogTables(d.catalog).load(w, ns, name)).metadata;
}

/** GET: the table's figures, the rules it crosses now, when it next may, and its runs. */
export async function tableMaintenance(d: TableMaintenanceDeps, w: VisibleWarehouse, ns: string, name: string, nowMs = Date.now()) {
  const m = await loadMetadata(d, w, ns, name);
  const ref = { warehouseId: w.id, namespace: levels(ns), table: name };
  const runs = await runsOfTable(d.prisma, ref, RUNS_LISTED);
  const lastOrphans = runs.find((r) => r.kind === 'remove_orphans' && r.status !== 'failed' && r.status !== 'running');
  const lastOrphanPassMs = lastOrphans?.finishedAt?.getTime() ?? null;
  const lastCompaction = runs.find((r) => r.kind === 'compact' && r.status !== 'failed' && r.status !== 'running');
  const due = rulesCrossed(m, { nowMs, lastOrphanPassMs, orphanPassEveryMs: ORPHAN_PASS_EVERY_MS, lastLayoutPassMs: lastCompaction?.finishedAt?.getTime() ?? null });
  const figures = await tableFigures(m, (path) => readTableFile(d, w, path));
  const { dataFiles, dataBytes } = figures;
  const oldest = (m.snapshots ?? []).reduce((min, s) => Math.min(min, Number(s['timestamp-ms'])), Infinity);
  return {
    table: `${ns}.${name}`, namespace: ns, name, warehouse: w.name, warehouse_id: w.id, table_uuid: m['table-uuid'] ?? null,
    health: {
      snapshots: figures.snapshots,
      oldest_snapshot_at: Number.isFinite(oldest) ? new Date(oldest).toISOString() : null,
      manifests: figures.manifests,
      data_files: dataFiles,
      data_bytes: dataBytes,
      avg_file_bytes: dataFiles && dataBytes !== null ? Math.round(dataBytes / dataFiles) : null,
      // Measured by compaction's planning (it reads every manifest): as the last compaction run left them.
      small_files: smallFilesLeft(lastCompaction),
      small_files_as_of: lastCompaction?.finishedAt?.toISOString() ?? null,
      metadata_files: figures.metadataFiles,
      orphan_candidates: orphanCandidates(lastOrphans),
      due: due.map((h) => ({ kind: h.kind, rule: h.detail })),
      next_eligible_at: due.length ? new Date(nowMs).toISOString() : nextEligible(m, lastOrphanPassMs, nowMs),
    },
    rules: MAINTENANCE_RULES,
    maintenance: MAINTENANCE_DEFAULTS,
    kinds: MAINTENANCE_KINDS,
    runs: runs.map(runView),
    note: 'Runs are queued by the hourly sweep when a rule is crossed, or by POST /v1/table/maintenance; dry_run: true shows what a run would do.',
  };
}

/** One of the table's own files (its manifest list), read as the catalog's read/write identity. */
async function readTableFile(d: TableMaintenanceDeps, w: VisibleWarehouse, path: string): Promise<Uint8Array> {
  const s3 = d.storage.s3As(await readWriteKeys(d.prisma, d.keyring, w.id));
  const out = await s3.send(new GetObjectCommand({ Bucket: w.tableBucket, Key: parseS3Location(path, 'read manifest list').key }));
  return new Uint8Array(await out.Body!.transformToByteArray());
}

function smallFilesLeft(run: MaintenanceRunRecord | undefined): number | null {
  const after = run?.after as { small_files?: number } | null | undefined;
  return after?.small_files ?? null;
}

function orphanCandidates(run: MaintenanceRunRecord | undefined): number | null {
  const after = run?.after as { orphan_candidates?: number } | null | undefined;
  return run ? (after?.orphan_candidates ?? 0) : null;
}

/** When the next rule would be crossed with no new commit: the oldest snapshot's age limit, or the next orphan pass. */
function nextEligible(m: TableMetadata, lastOrphanPassMs: number | null, nowMs: number): string {
  const day = 86_400_000;
  const candidates: number[] = [];
  const times = (m.snapshots ?? []).map((s) => Number(s['timestamp-ms']));
  if (times.length > 1) candidates.push(Math.min(...times) + (MAINTENANCE_DEFAULTS.snapshot_retention_days + 1) * day);
  candidates.push((lastOrphanPassMs ?? nowMs) + ORPHAN_PASS_EVERY_MS);
  return new Date(Math.max(nowMs, Math.min(...candidates))).toISOString();
}

/** GET /v1/table's short `maintenance`: the last run of each kind that ran, whether one is under way, and where the whole story is. */
export async function maintenanceSummary(prisma: PrismaClient, w: VisibleWarehouse, ns: string, name: string) {
  const runs = await runsOfTable(prisma, { warehouseId: w.id, namespace: levels(ns), table: name }, RUNS_LISTED);
  const last = new Map<string, MaintenanceRunRecord>();
  for (const r of runs) if (r.status !== 'running' && !last.has(r.kind)) last.set(r.kind, r);
  return {
    running: runs.some((r) => r.status === 'running'),
    last_runs: MAINTENANCE_KINDS.filter((k) => last.has(k)).map((k) => {
      const r = last.get(k)!;
      return { kind: k, status: r.status, reason: r.reason, finished_at: r.finishedAt?.toISOString() ?? null, freed_bytes: Number(r.freedBytes) };
    }),
    details: `/v1/table/maintenance?warehouse=${encodeURIComponent(w.id)}&namespace=${encodeURIComponent(ns)}&name=${encodeURIComponent(name)}`,
  };
}

export function runView(r: MaintenanceRunRecord) {
  return {
    run_id: r.id, kind: r.kind, trigger: r.trigger, status: r.status, reason: r.reason, before: r.before, after: r.after,
    freed_bytes: Number(r.freedBytes), snapshot_id: r.snapshotId?.toString() ?? null, requested_by: r.requestedBy,
    started_at: r.startedAt.toISOString(), finished_at: r.finishedAt?.toISOString() ?? null,
  };
}

/** The kinds asked for: every kind by default, each once. */
export function kindsAsked(kinds: MaintenanceKind[] | undefined): MaintenanceKind[] {
  if (!kinds || kinds.length === 0) return [...MAINTENANCE_KINDS];
  return [...new Set(kinds)];
}

/** POST: a run queued (202), or a dry run planned and answered (200). */
export async function requestMaintenance(
  d: TableMaintenanceDeps, w: VisibleWarehouse, ns: string, name: string, ask: { kinds: MaintenanceKind[]; dryRun: boolean },
  actor: { principalId: string; requestId: string | null },
) {
  await loadMetadata(d, w, ns, name); // 404 namespace_not_found / table_not_found before anything is queued
  const ref = { warehouse_id: w.id, namespace: levels(ns), table: name };
  if (ask.dryRun) {
    let planned: { kinds: unknown[] };
    try {
      planned = await d.queues.enqueueAndWait(maintenanceJobs.plan, { ...ref, kinds: ask.kinds }, DRY_RUN_WAIT_MS) as { kinds: unknown[] };
    } catch (err) {
      throw new HttpError(503, 'service_unavailable', `the maintenance worker did not plan the dry run: ${(err as Error).message}`, { retry_after_seconds: 5 }, { 'Retry-After': '5' });
    }
    return { status: 200, body: { dry_run: true, table: `${ns}.${name}`, warehouse_id: w.id, kinds: planned.kinds, note: 'Nothing was changed. Each kind is planned on the table as it is now; a run does them in order, so later kinds see what earlier ones left.' } };
  }
  const jobId = maintenanceJobId(w.id, ref.namespace, name);
  const before = await d.queues.state(QUEUES.maintenance, jobId);
  const joined = ['waiting', 'active', 'delayed', 'prioritized'].includes(before);
  const job: MaintenanceJob = { ...ref, kinds: ask.kinds, trigger: { type: 'manual', detail: `asked by ${actor.principalId}` }, requested_by: actor.principalId, request_id: actor.requestId };
  await d.queues.enqueue(maintenanceJobs.maintain, job);
  return {
    status: 202,
    body: {
      queued: true, joined, job_id: jobId, table: `${ns}.${name}`, warehouse_id: w.id, kinds: joined ? null : ask.kinds, trigger: job.trigger,
      poll: `/v1/table/maintenance?warehouse=${encodeURIComponent(w.id)}&namespace=${encodeURIComponent(ns)}&name=${encodeURIComponent(name)}`,
      note: joined ? 'A run of this table was already queued or under way: this request joined it (its kinds stand).' : 'The maintenance worker runs the kinds in order; each run appears in GET /v1/table/maintenance with its reason.',
    },
  };
}
