import type { Pool } from 'pg';
import { gateFreeSql } from '@floe/db/commit-gate';
import type { SqlClient } from '@floe/http';
import { joinNamespace, splitNamespace } from '@floe/iceberg';
import { ancestors, toHolder, type LocationHolder, type RawHolder } from './locations';
import { confirmed, transactionWithKnownOutcome } from './outcome';

// The catalog's tables and views (catalog_tables). This package is the one
// home of the catalog's rows: nothing else writes them (index.ts).
//
// Each table's current metadata location lives here and moves only by a
// compare-and-set on `version`: a commit that lost a race changes nothing.
// The table's own location moves with it, and a new or moved location is
// checked against every other holder under the warehouse's location lock.
//
// Data access here is raw SQL over pg, not the Prisma client: the catalog's
// load and commit paths run named prepared statements (bench/catalog holds
// loads under a millisecond and commits near the storage floor), and a
// commit's transaction must tell a refused statement from one whose outcome
// is unknown by pg's own error classes (outcome.ts), which Prisma's errors hide.

export interface TableRow {
  id: string;
  namespace: string[];
  name: string;
  kind: 'table' | 'view';
  metadataLocation: string | null;
  /** Null only for rows older than the column that the backfill could not place. */
  location: string | null;
  version: number;
}

interface Raw {
  id: string;
  namespace: string;
  name: string;
  kind: 'table' | 'view';
  metadata_location: string | null;
  location: string | null;
  version: number;
}

const toRow = (r: Raw): TableRow => ({
  id: r.id, namespace: splitNamespace(r.namespace), name: r.name, kind: r.kind, metadataLocation: r.metadata_location, location: r.location, version: r.version,
});

export async function findTable(db: SqlClient, warehouseId: string, namespace: string[], name: string, kind: 'table' | 'view' = 'table'): Promise<TableRow | null> {
  const { rows } = await db.query<Raw>({
    name: 'catalog_find_table',
    text: `SELECT id, namespace, name, kind, metadata_location, location, version FROM catalog_tables
            WHERE warehouse_id = $1 AND namespace = $2 AND name = $3 AND kind = $4`,
    values: [warehouseId, joinNamespace(namespace), name, kind],
  });
  return rows[0] ? toRow(rows[0]) : null;
}

/**
 * The table, read in the same round trip as a first look at its commit gate
 * (packages/db commit-gate.ts): `gateFree` false while a maintenance run holds it.
 */
export async function findTableAtGate(db: SqlClient, warehouseId: string, namespace: string[], name: string, gateKey: string): Promise<{ gateFree: boolean; row: TableRow | null }> {
  const { rows } = await db.query<Raw & { gate_free: boolean }>({
    name: 'catalog_find_table_at_gate',
    text: `SELECT g.free AS gate_free, t.id, t.namespace, t.name, t.kind, t.metadata_location, t.location, t.version
             FROM (SELECT ${gateFreeSql('$4')} AS free) g
             LEFT JOIN catalog_tables t ON t.warehouse_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.kind = 'table'`,
    values: [warehouseId, joinNamespace(namespace), name, gateKey],
  });
  const r = rows[0];
  return { gateFree: r.gate_free, row: r.id ? toRow(r) : null };
}

/** Any table or view of that name: they share one name space within a namespace. */
export async function nameTaken(db: SqlClient, warehouseId: string, namespace: string[], name: string): Promise<'table' | 'view' | null> {
  const { rows } = await db.query<{ kind: 'table' | 'view' }>(
    `SELECT kind FROM catalog_tables WHERE warehouse_id = $1 AND namespace = $2 AND name = $3`,
    [warehouseId, joinNamespace(namespace), name],
  );
  return rows[0]?.kind ?? null;
}

/** A pointer to write: a new row (`expectedVersion` null) or an existing one moved by compare-and-set. */
export interface PointerMove {
  id: string;
  expectedVersion: number | null;
  namespace: string[];
  name: string;
  kind: 'table' | 'view';
  metadataLocation: string;
  location: string;
  /** The location is new to this row (a create, a set-location, a register): it must overlap no other holder. */
  relocated: boolean;
}

export type MoveRefusal =
  /** The row changed since it was read, or the name was taken meanwhile. */
  | { reason: 'lost_race'; move: PointerMove }
  | { reason: 'location_taken'; move: PointerMove; holder: LocationHolder };

class Refused extends Error {
  constructor(readonly refusal: MoveRefusal) {
    super(refusal.reason);
  }
}

/**
 * Writes every pointer or none. A lone move is one statement in autocommit:
 * the compare-and-set when it keeps its location (the commit hot path), else
 * catalog_place_pointer, which takes the warehouse's location lock, checks
 * the new location against every other holder and writes, in one round trip.
 * Several moves are one transaction of those statements (the caller checks
 * the new locations of one call against each other). Returns the refusal
 * that stopped it, or null when everything moved; throws OutcomeUnknown when
 * the database may have committed without saying so.
 */
export async function movePointers(pool: Pool, warehouseId: string, moves: PointerMove[]): Promise<MoveRefusal | null> {
  const vacating = moves.filter((m) => m.relocated).map((m) => m.id);
  if (moves.length === 1) {
    const m = moves[0];
    if (m.expectedVersion !== null && !m.relocated) {
      const moved = await confirmed(() => swapPointer(pool, m.id, m.expectedVersion!, m.metadataLocation, m.location));
      return moved ? null : { reason: 'lost_race', move: m };
    }
    return confirmed(() => placePointer(pool, warehouseId, m, vacating));
  }
  try {
    await transactionWithKnownOutcome(pool, async (client) => {
      for (const m of moves) {
        const refusal = await placePointer(client, warehouseId, m, vacating);
        if (refusal) throw new Refused(refusal);
      }
    });
  } catch (err) {
    if (err instanceof Refused) return err.refusal;
    throw err;
  }
  return null;
}

type PlaceResult = { outcome: 'moved' | 'lost_race' | 'location_taken' } & { [K in keyof RawHolder as `holder_${K}`]: RawHolder[K] };

/** One pointer through catalog_place_pointer (migration 20261124120000); `vacating`: the rows whose old locations this write gives up. */
async function placePointer(db: SqlClient, warehouseId: string, m: PointerMove, vacating: string[]): Promise<MoveRefusal | null> {
  const { rows } = await db.query<PlaceResult>({
    name: 'catalog_place_pointer',
    text: `SELECT outcome, holder_kind, holder_namespace, holder_name, holder_location
             FROM catalog_place_pointer($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11::text[])`,
    values: [warehouseId, m.id, m.expectedVersion, joinNamespace(m.namespace), m.name, m.kind, m.metadataLocation, m.location,
      m.relocated, m.relocated ? ancestors(m.location) : [], vacating],
  });
  const r = rows[0];
  if (r.outcome === 'moved') return null;
  if (r.outcome === 'lost_race') return { reason: 'lost_race', move: m };
  return {
    reason: 'location_taken', move: m,
    holder: toHolder({ kind: r.holder_kind, namespace: r.holder_namespace, name: r.holder_name, location: r.holder_location }),
  };
}

/** The compare-and-set: true when `expectedVersion` was still current and the pointer moved. */
async function swapPointer(db: SqlClient, id: string, expectedVersion: number, metadataLocation: string, location: string): Promise<boolean> {
  const r = await db.query({
    name: 'catalog_swap_metadata',
    text: `UPDATE catalog_tables SET metadata_location = $3, location = $4, version = version + 1, updated_at = now()
            WHERE id = $1 AND version = $2`,
    values: [id, expectedVersion, metadataLocation, location],
  });
  return (r.rowCount ?? 0) === 1;
}

export async function listTables(db: SqlClient, warehouseId: string, namespace: string[], kind: 'table' | 'view', after: string | null, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT name FROM catalog_tables WHERE warehouse_id = $1 AND namespace = $2 AND kind = $3 AND ($4::text IS NULL OR name > $4)
      ORDER BY name LIMIT $5`,
    [warehouseId, joinNamespace(namespace), kind, after, limit],
  );
  return rows.map((r) => r.name);
}

/** Removes a table or view; false when it was gone already (a concurrent drop won). */
export async function deleteTable(db: SqlClient, id: string): Promise<boolean> {
  const r = await db.query(`DELETE FROM catalog_tables WHERE id = $1`, [id]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * Removes a table only while its pointer is still `metadataLocation`: false
 * when a commit moved it (or a drop removed the row) since it was read, so an
 * unregister answers the metadata every earlier commit is in.
 */
export async function deleteTableAt(db: SqlClient, id: string, metadataLocation: string): Promise<boolean> {
  const r = await db.query(`DELETE FROM catalog_tables WHERE id = $1 AND metadata_location = $2`, [id, metadataLocation]);
  return (r.rowCount ?? 0) > 0;
}

/** Moves a table or view to another identifier; false when the destination is taken. */
export async function renameTable(db: SqlClient, id: string, namespace: string[], name: string): Promise<boolean> {
  try {
    const r = await db.query(`UPDATE catalog_tables SET namespace = $2, name = $3, updated_at = now() WHERE id = $1`, [id, joinNamespace(namespace), name]);
    return (r.rowCount ?? 0) > 0;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return false;
    throw err;
  }
}
