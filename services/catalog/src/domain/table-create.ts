import { randomUUID } from 'node:crypto';
import {
  InvalidUpdateError, METADATA_RETENTION_PROPERTIES, metadataFileLocation, metadataFileName, newTableMetadata, serializeTableMetadata,
  type CreateTableRequest, type FormatVersion, type TableMetadata,
} from '@floe/iceberg';
import type { CommitDeps } from '../commit';
import { badRequest } from '../errors';
import { checkWritePaths } from '../locations';
import type { WarehouseRow } from '../store/warehouses';
import { requireNamespace } from './namespaces';
import { newLocation, requireLocationFree, requireNameFree, writeFirstVersion } from './tabular-steps';

// POST …/namespaces/{namespace}/tables: a new table's first metadata, held to
// the location rules, then (unless the create is staged) its file and its
// pointer. A staged create stores nothing: the client commits it later with
// assert-create (table-commit.ts).

export interface CreatedTable {
  /** Null for a staged create (nothing stored yet). */
  metadataLocation: string | null;
  metadataText: string;
  tableLocation: string;
}

function newMetadataOf(body: CreateTableRequest, location: string, properties: Record<string, string>): TableMetadata {
  try {
    return newTableMetadata({
      location,
      schema: body.schema,
      partitionSpec: body['partition-spec'] ?? undefined,
      sortOrder: body['write-order'] ?? undefined,
      properties,
      formatVersion: properties['format-version'] ? (Number(properties['format-version']) as FormatVersion) : undefined,
    });
  } catch (err) {
    if (err instanceof InvalidUpdateError) throw badRequest(err.message);
    throw err;
  }
}

export async function createTable(d: CommitDeps, wh: WarehouseRow, ns: string[], body: CreateTableRequest): Promise<CreatedTable> {
  // validate
  const name = body.name;
  await requireNamespace(d.db, wh.id, ns);
  await requireNameFree(d.db, wh.id, ns, name, 'Table');
  const location = newLocation(wh.tableBucket, ns, name, body.location, 'Table');
  // Floe's defaults where the request does not set them (Iceberg catalogs' table-default.* properties): metadata clean-up at commit.
  const properties = { ...METADATA_RETENTION_PROPERTIES, ...(body.properties ?? {}) };
  checkWritePaths(properties, location, wh.tableBucket);
  const meta = newMetadataOf(body, location, properties);
  // An early refusal; the insert checks again under the warehouse's location lock.
  await requireLocationFree(d.db, wh.id, location, 'Table');
  const text = serializeTableMetadata(meta);
  if (body['stage-create'] === true) return { metadataLocation: null, metadataText: text, tableLocation: location };

  // act: the metadata file first, then the pointer
  const metadataLocation = metadataFileLocation(meta, metadataFileName(0, randomUUID()));
  await writeFirstVersion(d, wh, { namespace: ns, name, kind: 'table' }, metadataLocation, location, text);
  return { metadataLocation, metadataText: text, tableLocation: location };
}
