import {
  FieldResolver, ScanInputError, bindFilter, currentSchema, currentSnapshot, filesMayPass, liveFilesOf, manifestMayPass, readSnapshotManifests,
  scanTasks, scanTasksJson, schemaById, snapshotById, stringifyJson, type BoundFilter, type LiveFile, type ReadObject, type Schema, type ScanTask,
  type Snapshot, type SnapshotManifests, type TableMetadata,
} from '@floe/iceberg';
import { badRequest, forbidden } from '../errors';
import { isWithin } from '../locations';

// Server-side scan planning (the REST document's planTableScan; spec "Scan
// Planning"): a request read and checked against the table (the snapshot,
// the schema its names bind to, the filter), then the snapshot's live files
// less those the filter's bounds rule out (@floe/iceberg scan/), each with the
// deletes that apply to it, written as pages of file scan tasks. Every file a
// plan names must lie in the table's own location: a plan's credentials are
// vended for the files' common prefix, and a table whose metadata named
// another table's files must not hand out a session for them.

export interface ScanRequest {
  snapshotId: bigint | null;
  startSnapshotId: bigint | null;
  endSnapshotId: bigint | null;
  select: string[] | null;
  filter: unknown;
  caseSensitive: boolean;
  useSnapshotSchema: boolean;
  statsFields: string[] | null;
}

const isInteger = (v: unknown): v is number | bigint => typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));

/** The PlanTableScanRequest body, with a 400 naming the field for each wrong type or combination. */
export function parseScanRequest(body: unknown): ScanRequest {
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw badRequest('Invalid scan request: the body is a JSON object');
  const b = (body ?? {}) as Record<string, unknown>;
  const id = (key: string): bigint | null => {
    const v = b[key];
    if (v === undefined || v === null) return null;
    if (!isInteger(v)) throw badRequest(`Invalid scan request: ${key} must be an integer`);
    return BigInt(v);
  };
  const names = (key: string): string[] | null => {
    const v = b[key];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || v.some((n) => typeof n !== 'string')) throw badRequest(`Invalid scan request: ${key} must be an array of field names`);
    return v as string[];
  };
  const flag = (key: string, fallback: boolean): boolean => {
    const v = b[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') throw badRequest(`Invalid scan request: ${key} must be a boolean`);
    return v;
  };
  const min = b['min-rows-requested'];
  if (min !== undefined && min !== null && !isInteger(min)) throw badRequest('Invalid scan request: min-rows-requested must be an integer');
  const r: ScanRequest = {
    snapshotId: id('snapshot-id'), startSnapshotId: id('start-snapshot-id'), endSnapshotId: id('end-snapshot-id'),
    select: names('select'), filter: b.filter ?? true, caseSensitive: flag('case-sensitive', true),
    useSnapshotSchema: flag('use-snapshot-schema', false), statsFields: names('stats-fields'),
  };
  if (r.snapshotId !== null && (r.startSnapshotId !== null || r.endSnapshotId !== null)) {
    throw badRequest('Invalid scan request: a point-in-time scan (snapshot-id) and an incremental scan (start-snapshot-id, end-snapshot-id) cannot be asked for together');
  }
  if (r.startSnapshotId !== null && r.endSnapshotId === null) throw badRequest('Invalid scan request: end-snapshot-id is required with start-snapshot-id');
  return r;
}

/** What a plan reads, decided before any manifest is: the snapshot, the schema, the filter bound to it, the stats asked for. */
export interface ScanScope {
  metadata: TableMetadata;
  /** Null for a table with no snapshot yet: nothing to plan. */
  snapshot: Snapshot | null;
  schema: Schema;
  filter: BoundFilter;
  statsFieldIds: Set<number>;
  /** An incremental scan: the append snapshots after the start, up to and including the end. */
  appendedBy: Set<bigint> | null;
}

function snapshotOrRefuse(m: TableMetadata, id: bigint, what: string): Snapshot {
  const s = snapshotById(m, id);
  if (!s) throw badRequest(`Cannot find ${what} with ID ${id}: it is not among the table's snapshots (expired, or of another table)`);
  return s;
}

/** The append snapshots of `end`'s ancestry after `start` (exclusive); a 400 when `start` is not an ancestor of `end`. */
function appendsBetween(m: TableMetadata, start: bigint, end: Snapshot): Set<bigint> {
  const out = new Set<bigint>();
  let at: Snapshot | undefined = end;
  while (at && BigInt(at['snapshot-id']) !== start) {
    if ((at.summary?.operation ?? 'append') === 'append') out.add(BigInt(at['snapshot-id']));
    const parent: unknown = at['parent-snapshot-id'];
    at = parent === undefined || parent === null ? undefined : snapshotById(m, BigInt(parent as number | bigint));
  }
  if (!at) throw badRequest(`Starting snapshot ${start} is not an ancestor of end snapshot ${end['snapshot-id']}`);
  return out;
}

export function scanScope(m: TableMetadata, r: ScanRequest): ScanScope {
  let snapshot: Snapshot | null;
  let appendedBy: Set<bigint> | null = null;
  if (r.snapshotId !== null) snapshot = snapshotOrRefuse(m, r.snapshotId, 'snapshot');
  else if (r.endSnapshotId !== null) {
    snapshot = snapshotOrRefuse(m, r.endSnapshotId, 'end snapshot');
    if (r.startSnapshotId !== null) {
      snapshotOrRefuse(m, r.startSnapshotId, 'start snapshot');
      appendedBy = appendsBetween(m, r.startSnapshotId, snapshot);
    }
  } else snapshot = currentSnapshot(m) ?? null;
  if (snapshot && !snapshot['manifest-list']) throw badRequest('This table is a v1 table whose snapshot lists its manifests inline; scan planning reads manifest lists only');
  const schemaId = snapshot?.['schema-id'];
  const schema = (r.useSnapshotSchema && schemaId !== undefined && schemaId !== null ? schemaById(m, schemaId) : undefined) ?? currentSchema(m);
  const fields = new FieldResolver(schema, r.caseSensitive);
  try {
    for (const name of r.select ?? []) fields.byName(name);
    const statsFieldIds = new Set((r.statsFields ?? []).map((name) => fields.byName(name).id));
    return { metadata: m, snapshot, schema, filter: bindFilter(r.filter, fields), statsFieldIds, appendedBy };
  } catch (err) {
    if (err instanceof ScanInputError) throw badRequest(`Invalid scan request: ${err.message}`);
    throw err;
  }
}

/** Reads the table's objects, refusing a path outside its location (a metadata file naming another table's files). */
export function withinTable(read: ReadObject, tableLocation: string): ReadObject {
  return (path) => {
    if (!isWithin(path, tableLocation)) throw forbidden(`The table's metadata names ${path}, outside the table's location; it is not read`);
    return read(path);
  };
}

/** The scanned snapshot's manifest list, read once: its counts choose between planning now and in the background, and planning reads on from it. */
export async function scopeManifests(read: ReadObject, scope: ScanScope): Promise<SnapshotManifests | null> {
  return scope.snapshot ? readSnapshotManifests(read, scope.snapshot) : null;
}

/** Data and delete files the manifest list says the snapshot holds. */
export const filesListed = (head: SnapshotManifests | null): number =>
  (head?.manifests ?? []).reduce((n, mf) => n + (mf.added_files_count ?? 0) + (mf.existing_files_count ?? 0), 0);

/** The scope's file scan tasks, from its manifest list on; `read` refuses what lies outside the table (withinTable). */
export async function planScan(read: ReadObject, scope: ScanScope, head: SnapshotManifests | null): Promise<ScanTask[]> {
  if (!head || scope.filter.matchesNothing) return [];
  const live = await liveFilesOf(read, head, (mf) => manifestMayPass(scope.metadata, mf, scope.filter.bounds));
  let data: LiveFile[] = live.data;
  if (scope.appendedBy) data = data.filter((f) => f.addedSnapshotId !== null && f.addedSnapshotId !== undefined && scope.appendedBy!.has(BigInt(f.addedSnapshotId)));
  const kept = filesMayPass(scope.metadata, data, scope.filter.bounds);
  // An incremental scan reads what appends added: appends add no deletes.
  const tasks = scanTasks(scope.metadata, kept, scope.appendedBy ? [] : live.deletes);
  for (const t of tasks) {
    for (const f of [t.data, ...t.deletes]) {
      if (!isWithin(f.file.file_path, scope.metadata.location)) throw forbidden(`The table's metadata names ${f.file.file_path}, outside the table's location; it is not planned`);
    }
  }
  return tasks;
}

/** The tasks as pages of `perPage` tasks, each ScanTasks JSON text (64-bit values written exactly). */
export function scanPages(tasks: ScanTask[], scope: ScanScope, perPage: number): string[] {
  const pages: string[] = [];
  for (let i = 0; i < tasks.length; i += perPage) {
    pages.push(stringifyJson(scanTasksJson(tasks.slice(i, i + perPage), { metadata: scope.metadata, schema: scope.schema, statsFieldIds: scope.statsFieldIds })));
  }
  return pages;
}

/** The longest directory every planned file (data and deletes) lies in: what a plan's credentials are vended for. */
export function commonPrefix(tasks: ScanTask[]): string | undefined {
  let prefix: string[] | null = null;
  for (const t of tasks) {
    for (const f of [t.data, ...t.deletes]) {
      const dirs = f.file.file_path.split('/').slice(0, -1);
      if (!prefix) prefix = dirs;
      else {
        let n = 0;
        while (n < prefix.length && n < dirs.length && prefix[n] === dirs[n]) n++;
        prefix = prefix.slice(0, n);
      }
    }
  }
  return prefix ? prefix.join('/') : undefined;
}
