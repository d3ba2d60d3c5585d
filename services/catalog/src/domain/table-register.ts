import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { findTable } from '@floe/catalog-store';
import { MetadataParseError, parseTableMetadata, type TableMetadata } from '@floe/iceberg';
import { placePointer } from '../commit';
import { alreadyExists, badRequest } from '../errors';
import { checkedLocation, checkWritePaths } from '../locations';
import type { WarehouseRow } from '../store/warehouses';
import { requireWithin } from './tabular-steps';

// POST …/namespaces/{namespace}/register adopts a table whose metadata file
// already sits in the warehouse's table bucket (registration.ts reads it, as
// the warehouse's own identity). The table's location is held to the
// catalog's rules and must hold the file; an existing table of that name is
// replaced only when the request says overwrite.

export interface Registration {
  name: string;
  metadataLocation: string;
  /** The registered file's text (registration.ts readForRegistration). */
  metadataText: string;
  overwrite: boolean;
}

function parsedForRegistration(text: string): TableMetadata {
  try {
    return parseTableMetadata(text);
  } catch (err) {
    if (err instanceof MetadataParseError) throw badRequest(`Not valid table metadata: ${err.message}`);
    throw err;
  }
}

/** Places the registered table's pointer; returns the table's location. */
export async function registerTable(db: Pool, wh: WarehouseRow, ns: string[], r: Registration): Promise<string> {
  const meta = parsedForRegistration(r.metadataText);
  const location = checkedLocation(meta.location, wh.tableBucket, 'Table location');
  checkWritePaths(meta.properties, location, wh.tableBucket);
  requireWithin(r.metadataLocation, location, 'table');
  const existing = await findTable(db, wh.id, ns, r.name);
  if (existing && !r.overwrite) throw alreadyExists(`Table ${[...ns, r.name].join('.')}`);
  await placePointer(db, wh.id, {
    id: existing?.id ?? randomUUID(), expectedVersion: existing?.version ?? null, namespace: ns, name: r.name, kind: 'table',
    metadataLocation: r.metadataLocation, location, relocated: existing?.location !== location,
  }, 'Table');
  return location;
}
