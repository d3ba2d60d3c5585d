import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { ObjectClient } from '@floe/storage';
import {
  applyUpdates, checkRequirements, InvalidUpdateError, metadataFileLocation, metadataFileName, nextMetadataVersion,
  serializeTableMetadata, withMetadataLog, type TableMetadata, type TableRequirement, type TableUpdate,
} from '@floe/iceberg';
import { badRequest, IcebergError } from './errors';
import { MetadataFiles, parseS3Location } from './metadata-files';
import { swapMetadataLocation, type TableRow } from './store/tables';
import { withTransaction } from '@floe/http';

// One table commit: check the requirements against the current metadata,
// apply the updates, write the new metadata file, then swap the pointer with
// a compare-and-set. A failed requirement or a lost race is 409
// CommitFailedException and leaves no visible change: the pointer moves
// only in the swap, and a file written for a lost race is never referenced.

export const commitFailed = (m: string) => new IcebergError(409, 'CommitFailedException', m);

export interface PreparedCommit {
  row: TableRow | null;
  current: TableMetadata | null;
  currentLocation: string | null;
  next: TableMetadata;
  /** Null when nothing changed (every update a no-op): no file, no swap. */
  nextLocation: string | null;
  nextText: string;
}

/** Reads, checks and applies; writes nothing. `row` null means a staged create (assert-create). */
export async function prepareCommit(
  files: MetadataFiles, store: ObjectClient, row: TableRow | null, requirements: TableRequirement[], updates: TableUpdate[],
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
  if (current && next === current) {
    return { row, current, currentLocation, next, nextLocation: null, nextText: await files.read(store, currentLocation!) };
  }
  if (current && currentLocation) next = withMetadataLog(current, currentLocation, next);
  const version = currentLocation ? nextMetadataVersion(currentLocation) : 0;
  const nextLocation = metadataFileLocation(next, metadataFileName(version, randomUUID()));
  return { row, current, currentLocation, next, nextLocation, nextText: serializeTableMetadata(next) };
}

/**
 * Swaps every prepared table's pointer in one database transaction: all
 * tables move or none does. New tables (staged creates) are inserted.
 */
export async function swapAll(
  pool: Pool, warehouseId: string, commits: Array<PreparedCommit & { namespace: string[]; name: string }>,
): Promise<void> {
  const moving = commits.filter((c) => c.nextLocation);
  // One existing table: a single compare-and-set statement is its own transaction.
  if (moving.length === 1 && moving[0].row) {
    const c = moving[0];
    if (!(await swapMetadataLocation(pool, c.row!.id, c.row!.version, c.nextLocation!))) {
      throw commitFailed(`Commit failed: ${[...c.namespace, c.name].join('.')} was changed by a concurrent commit`);
    }
    return;
  }
  await withTransaction(pool, async (client) => {
    for (const c of commits) {
      if (!c.nextLocation) continue;
      if (c.row) {
        const r = await client.query(
          `UPDATE catalog_tables SET metadata_location = $3, version = version + 1, updated_at = now() WHERE id = $1 AND version = $2`,
          [c.row.id, c.row.version, c.nextLocation],
        );
        if (r.rowCount !== 1) throw commitFailed(`Commit failed: ${[...c.namespace, c.name].join('.')} was changed by a concurrent commit`);
      } else {
        const r = await client.query(
          `INSERT INTO catalog_tables (id, warehouse_id, namespace, name, kind, metadata_location, version)
           VALUES ($1, $2, $3, $4, 'table', $5, 1) ON CONFLICT (warehouse_id, namespace, name) DO NOTHING`,
          [randomUUID(), warehouseId, c.namespace.join('\u001f'), c.name, c.nextLocation],
        );
        if (r.rowCount !== 1) throw commitFailed(`Commit failed: ${[...c.namespace, c.name].join('.')} was created concurrently`);
      }
    }
  });
}

/**
 * After a successful commit: with write.metadata.delete-after-commit.enabled,
 * metadata files that fell off the metadata-log are deleted (best effort).
 */
export async function deleteDroppedMetadata(store: ObjectClient, c: PreparedCommit): Promise<void> {
  if (!c.current || !c.nextLocation || c.next.properties?.['write.metadata.delete-after-commit.enabled'] !== 'true') return;
  const kept = new Set((c.next['metadata-log'] ?? []).map((e) => e['metadata-file']));
  const before = [...(c.current['metadata-log'] ?? []).map((e) => e['metadata-file']), c.currentLocation!];
  for (const file of before.filter((f) => !kept.has(f))) {
    const { bucket, key } = parseS3Location(file);
    await store.delete(bucket, key).catch(() => undefined);
  }
}

/** Removes a file written for a commit that then lost (never referenced by any pointer). */
export async function discardUnreferenced(store: ObjectClient, location: string | null): Promise<void> {
  if (!location) return;
  const { bucket, key } = parseS3Location(location);
  await store.delete(bucket, key).catch(() => undefined);
}
