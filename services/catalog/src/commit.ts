import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { movePointers, OutcomeUnknown, type PointerMove, type TableRow } from '@floe/catalog-store';
import type { Logger } from '@floe/http';
import { parseS3Location, type ObjectClient, type StorageProvider, type StoreCredentials } from '@floe/storage';
import {
  applyUpdates, checkRequirements, InvalidUpdateError, metadataFileLocation, metadataFileName, nextMetadataVersion,
  serializeTableMetadata, withMetadataLog, type TableMetadata, type TableRequirement, type TableUpdate,
} from '@floe/iceberg';
import { badRequest, IcebergError } from './errors';
import { checkedLocation, checkWritePaths, isWithin, locationTaken, overlaps, WRITE_PATH_PROPERTIES } from './locations';
import { MetadataFiles } from './metadata-files';

// One table commit: check the requirements against the current metadata,
// apply the updates, check any new location, write the new metadata file,
// then swap the pointer with a compare-and-set. A failed requirement or a
// lost race is 409 CommitFailedException and leaves no visible change: the
// pointer moves only in the swap, and a file written for a lost race is
// never referenced. When the database may have swapped without confirming
// it, the answer is 500 CommitStateUnknownException and the new file is
// kept: the pointer may name it.

export const commitFailed = (m: string) => new IcebergError(409, 'CommitFailedException', m);
export const commitStateUnknown = () => new IcebergError(500, 'CommitStateUnknownException',
  'The catalog could not confirm whether the commit was applied; reload the table to see its current version');

export interface PreparedCommit {
  row: TableRow | null;
  current: TableMetadata | null;
  currentLocation: string | null;
  next: TableMetadata;
  /** Null when nothing changed (every update a no-op): no file, no swap. */
  nextLocation: string | null;
  nextText: string;
  /** The table's own location after the commit, as the catalog keeps it. */
  location: string;
  /** The location is new (a create or a set-location): it must overlap no other table's or view's. */
  relocated: boolean;
}

export type StagedCommit = PreparedCommit & { namespace: string[]; name: string };

/** Reads, checks and applies; writes nothing. `row` null means a staged create (assert-create). */
export async function prepareCommit(
  files: MetadataFiles, store: ObjectClient, bucket: string, row: TableRow | null, requirements: TableRequirement[], updates: TableUpdate[],
): Promise<PreparedCommit> {
  const currentLocation = row?.metadataLocation ?? null;
  const current = currentLocation ? await files.readParsed(store, currentLocation) : null;
  const failures = checkRequirements(current, requirements);
  if (failures.length) throw commitFailed(`Requirement failed: ${failures.map((f) => f.message).join('; ')}`);
  let next: TableMetadata;
  try {
    next = applyUpdates(current, updates, { nowMs: Date.now() });
  } catch (err) {
    if (err instanceof InvalidUpdateError) throw err.retryable ? commitFailed(err.message) : badRequest(err.message);
    throw err;
  }
  const relocated = !current || next.location !== current.location;
  // A table keeps whatever location it has; only a new one, or new write paths, are held to the rules.
  const location = relocated ? checkedLocation(next.location, bucket, 'Table location') : next.location;
  if (relocated || WRITE_PATH_PROPERTIES.some((k) => next.properties?.[k] !== current?.properties?.[k])) {
    checkWritePaths(next.properties, location, bucket);
  }
  if (current && next === current) {
    return { row, current, currentLocation, next, nextLocation: null, nextText: await files.read(store, currentLocation!), location, relocated: false };
  }
  if (current && currentLocation) next = withMetadataLog(current, currentLocation, next);
  const version = currentLocation ? nextMetadataVersion(currentLocation) : 0;
  const nextLocation = metadataFileLocation(next, metadataFileName(version, randomUUID()));
  return { row, current, currentLocation, next, nextLocation, nextText: serializeTableMetadata(next), location, relocated };
}

/**
 * Swaps every prepared table's pointer in one database transaction: all
 * tables move or none does. New tables (staged creates) are inserted; new
 * locations are checked against each other here and against every other
 * table and view by the store, under the warehouse's location lock.
 */
export async function swapAll(pool: Pool, warehouseId: string, commits: StagedCommit[]): Promise<void> {
  const moving = commits.filter((c) => c.nextLocation);
  const relocating = moving.filter((c) => c.relocated);
  for (const [i, a] of relocating.entries()) {
    const b = relocating.slice(i + 1).find((o) => overlaps(a.location, o.location));
    if (b) throw badRequest(`Table locations ${a.location} and ${b.location} of one transaction overlap: no two tables share a location`);
  }
  const moves: PointerMove[] = moving.map((c) => ({
    id: c.row?.id ?? randomUUID(), expectedVersion: c.row?.version ?? null, namespace: c.namespace, name: c.name, kind: 'table',
    metadataLocation: c.nextLocation!, location: c.location, relocated: c.relocated,
  }));
  const refusal = await moveOrUnknown(pool, warehouseId, moves);
  if (!refusal) return;
  const ident = [...refusal.move.namespace, refusal.move.name].join('.');
  if (refusal.reason === 'location_taken') throw locationTaken('Table location', refusal.move.location, refusal.holder);
  throw commitFailed(refusal.move.expectedVersion === null ? `Commit failed: ${ident} was created concurrently` : `Commit failed: ${ident} was changed by a concurrent commit`);
}

/**
 * Writes one pointer of a create, a register or a view replace: a new row
 * (`expectedVersion` null; a name taken meanwhile is AlreadyExists) or an
 * existing one moved (a lost race is CommitFailed). `noun` names it in refusals.
 */
export async function placePointer(pool: Pool, warehouseId: string, move: PointerMove, noun: 'Table' | 'View'): Promise<void> {
  const refusal = await moveOrUnknown(pool, warehouseId, [move]);
  if (!refusal) return;
  const ident = [...move.namespace, move.name].join('.');
  if (refusal.reason === 'location_taken') throw locationTaken(`${noun} location`, move.location, refusal.holder);
  if (move.expectedVersion === null) throw new IcebergError(409, 'AlreadyExistsException', `${noun} ${ident} already exists`);
  throw commitFailed(`Commit failed: ${noun.toLowerCase()} ${ident} was changed by a concurrent commit`);
}

async function moveOrUnknown(pool: Pool, warehouseId: string, moves: PointerMove[]) {
  try {
    return await movePointers(pool, warehouseId, moves);
  } catch (err) {
    if (err instanceof OutcomeUnknown) throw commitStateUnknown();
    throw err;
  }
}

/** True when a failed commit certainly left its new metadata file unreferenced, so the file may go. */
export const mayDiscard = (err: unknown) => !(err instanceof IcebergError && err.type === 'CommitStateUnknownException');

/**
 * After a successful commit: with write.metadata.delete-after-commit.enabled,
 * metadata files that fell off the metadata-log are deleted (best effort) —
 * only those inside the table's own location: a metadata-log is whatever the
 * table's writers put there, and must never reach another table's files.
 */
export async function deleteDroppedMetadata(store: ObjectClient, c: PreparedCommit): Promise<void> {
  if (!c.current || !c.nextLocation || c.next.properties?.['write.metadata.delete-after-commit.enabled'] !== 'true') return;
  const kept = new Set((c.next['metadata-log'] ?? []).map((e) => e['metadata-file']));
  const before = [...(c.current['metadata-log'] ?? []).map((e) => e['metadata-file']), c.currentLocation!];
  for (const file of before.filter((f) => !kept.has(f) && isWithin(f, c.location))) {
    const { bucket, key } = parseS3Location(file, 'delete metadata');
    await store.delete(bucket, key).catch(() => undefined);
  }
}

/** Removes a file written for a commit that then lost (never referenced by any pointer). */
export async function discardUnreferenced(store: ObjectClient, location: string | null): Promise<void> {
  if (!location) return;
  const { bucket, key } = parseS3Location(location, 'delete metadata');
  await store.delete(bucket, key).catch(() => undefined);
}

/** What writing a commit touches: the pointer store, the object store as the warehouse, the metadata files. */
export interface CommitDeps {
  db: Pool;
  storage: StorageProvider;
  metadata: MetadataFiles;
  logger: Logger;
}

type Warehouse = { id: string; tableBucket: string; rw: StoreCredentials };

/** A new table's or view's metadata file, then its pointer; the file goes again when the pointer certainly did not move. */
export async function writeAndPlace(d: CommitDeps, wh: Warehouse, move: PointerMove, text: string, noun: 'Table' | 'View'): Promise<void> {
  const s3 = d.storage.objectsAs(wh.rw);
  await d.metadata.write(s3, move.metadataLocation, text);
  try {
    await placePointer(d.db, wh.id, move, noun);
  } catch (err) {
    if (mayDiscard(err)) await discardUnreferenced(s3, move.metadataLocation);
    throw err;
  }
}

/** Prepares one table's commit and writes its new metadata file; the pointer is swapped by finishCommits. */
export async function stageCommit(
  d: CommitDeps, wh: Warehouse, row: TableRow | null, parts: { requirements: TableRequirement[]; updates: TableUpdate[] }, ident: { namespace: string[]; name: string },
): Promise<StagedCommit> {
  const s3 = d.storage.objectsAs(wh.rw);
  const prepared = await prepareCommit(d.metadata, s3, wh.tableBucket, row, parts.requirements, parts.updates);
  if (prepared.nextLocation) await d.metadata.write(s3, prepared.nextLocation, prepared.nextText);
  return { ...prepared, ...ident };
}

/** Swaps the staged pointers; files of a commit that certainly did not land are removed, and after success the metadata files that fell off the log. */
export async function finishCommits(d: CommitDeps, wh: Warehouse, commits: StagedCommit[]): Promise<void> {
  const s3 = d.storage.objectsAs(wh.rw);
  try {
    await swapAll(d.db, wh.id, commits);
  } catch (err) {
    if (mayDiscard(err)) for (const c of commits) await discardUnreferenced(s3, c.nextLocation);
    else d.logger.error('commit outcome unknown; its metadata files are kept', { warehouse_id: wh.id, files: commits.map((c) => c.nextLocation), err });
    throw err;
  }
  for (const c of commits) await deleteDroppedMetadata(s3, c);
}

/** Removes the files of staged commits that will not be swapped (a multi-table commit refused part-way). */
export async function discardStaged(d: Pick<CommitDeps, 'storage'>, wh: Warehouse, staged: StagedCommit[]): Promise<void> {
  const s3 = d.storage.objectsAs(wh.rw);
  for (const c of staged) await discardUnreferenced(s3, c.nextLocation);
}
