import { randomUUID } from 'node:crypto';
import type { Express, Request, RequestHandler, Response } from 'express';
import {
  InvalidUpdateError, joinNamespace, METADATA_RETENTION_PROPERTIES, metadataFileLocation, metadataFileName, newTableMetadata, parseCreateTableRequest, parseTableRequirements, parseTableUpdates,
  serializeTableMetadata, type CreateTableRequest, type FormatVersion, type TableRequirement, type TableUpdate,
} from '@floe/iceberg';
import { COMMIT_GATE_HEADER, passCommitGate } from '@floe/db/commit-gate';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { commitFailed, discardStaged, finishCommits, stageCommit, writeAndPlace, type StagedCommit } from '../commit';
import { alreadyExists, badRequest, noSuchNamespace, noSuchTable } from '../errors';
import { checkedLocation, checkWritePaths, derivedLocation, locationTaken } from '../locations';
import { sendLoadResult } from '../responses';
import { overlappingHolder } from '../store/locations';
import { getNamespace } from '../store/namespaces';
import { findTable, nameTaken } from '../store/tables';
import type { WarehouseRow } from '../store/warehouses';
import { requirePrefix, requireWrite } from '../guards';
import { namespaceOf, warehouseOf } from '../request';

type Json = Record<string, unknown>;

function parseCreateRequest(body: unknown): CreateTableRequest {
  try {
    return parseCreateTableRequest(body ?? {});
  } catch (err) {
    throw badRequest(`Invalid request: ${(err as Error).message}`);
  }
}

function parseCommitParts(body: Json): { requirements: TableRequirement[]; updates: TableUpdate[] } {
  try {
    return { requirements: parseTableRequirements(body.requirements ?? []), updates: parseTableUpdates(body.updates ?? []) };
  } catch (err) {
    throw badRequest(`Invalid commit: ${(err as Error).message}`);
  }
}

/** The location a create asks for, held to the rules, or one derived from the names. */
function locationOfNewTable(wh: WarehouseRow, ns: string[], name: string, asked: unknown): string {
  if (asked === undefined || asked === null) return derivedLocation(wh.tableBucket, ns, name, randomUUID().replace(/-/g, ''));
  return checkedLocation(asked, wh.tableBucket, 'Table location');
}

/** Whether a commit waits at its tables' commit gates: all but a gate holder's own. */
const gatedCommit = (req: Request) => req.get(COMMIT_GATE_HEADER) === undefined;

export function mountCommits(app: Express, d: CatalogDeps): Record<'create' | 'commit', RequestHandler[]> {
  const auth = d.auth.requireCaller();

  // POST /v1/{prefix}/namespaces/{namespace}/tables — create, or stage-create.
  const create = [auth, requirePrefix, requireWrite, async (req: Request, res: Response) => {
    // validate
    const ns = namespaceOf(req);
    const body = parseCreateRequest(req.body);
    const name = body.name;
    const wh = warehouseOf(req);
    if (!(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
    if (await nameTaken(d.db, wh.id, ns, name)) throw alreadyExists(`Table ${[...ns, name].join('.')}`);
    const location = locationOfNewTable(wh, ns, name, body.location);
    // Floe's defaults where the request does not set them (Iceberg catalogs' table-default.* properties): metadata clean-up at commit.
    const properties = { ...METADATA_RETENTION_PROPERTIES, ...(body.properties ?? {}) };
    checkWritePaths(properties, location, wh.tableBucket);
    let meta;
    try {
      meta = newTableMetadata({
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
    // An early refusal; the insert checks again under the warehouse's location lock.
    const holder = await overlappingHolder(d.db, wh.id, location);
    if (holder) throw locationTaken('Table location', location, holder);
    const text = serializeTableMetadata(meta);
    if (body['stage-create'] === true) return sendLoadResult(d, req, res, wh, { metadataLocation: null, metadataText: text, tableLocation: location });

    // act: the metadata file first, then the pointer
    const metadataLocation = metadataFileLocation(meta, metadataFileName(0, randomUUID()));
    await writeAndPlace(d, wh, { id: randomUUID(), expectedVersion: null, namespace: ns, name, kind: 'table', metadataLocation, location, relocated: true }, text, 'Table');
    return sendLoadResult(d, req, res, wh, { metadataLocation, metadataText: text, tableLocation: location });
  }];

  /**
   * Checks one table's commit and stages it (its file written, its pointer not yet swapped).
   * `gated`: the commit first waits while a maintenance run holds the table's commit gate
   * (packages/db commit-gate.ts); the holder's own commits say so and go on.
   */
  async function stage(wh: WarehouseRow, ns: string[], name: string, body: Json, gated: boolean): Promise<StagedCommit> {
    const parts = parseCommitParts(body);
    const { requirements } = parts;
    if (gated) await passCommitGate(d.db, { warehouseId: wh.id, namespace: ns, name });
    const row = await findTable(d.db, wh.id, ns, name);
    const creating = requirements.some((r) => r.type === 'assert-create');
    // A missing namespace is a missing table here, as the reference server answers.
    if (!row && !creating) throw noSuchTable(ns, name);
    if (row && creating) throw commitFailed(`Requirement failed: table ${[...ns, name].join('.')} already exists`);
    if (!row && !(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
    return stageCommit(d, wh, row, parts, { namespace: ns, name });
  }

  /** After the answer: a commit that made its table cross a maintenance rule queues the table's run (never delays or fails the commit). */
  function judgeForMaintenance(wh: WarehouseRow, staged: StagedCommit[]): void {
    for (const c of staged) {
      if (!c.nextLocation) continue;
      void d.maintenance.afterCommit({ warehouseId: wh.id, namespace: c.namespace, name: c.name, metadata: c.next })
        .catch((err) => d.logger.warn('judging a commit for maintenance failed', { warehouse_id: wh.id, err: (err as Error).message }));
    }
  }

  // POST /v1/{prefix}/namespaces/{namespace}/tables/{table} — commit.
  const commit = [auth, requirePrefix, requireWrite, async (req: Request, res: Response) => {
    const ns = namespaceOf(req);
    const wh = warehouseOf(req);
    const prepared = await stage(wh, ns, String(req.params.table), (req.body ?? {}) as Json, gatedCommit(req));
    await finishCommits(d, wh, [prepared]);
    const location = prepared.nextLocation ?? prepared.currentLocation!;
    res.status(200).type('application/json').send(`{"metadata-location":${JSON.stringify(location)},"metadata":${prepared.nextText}}`);
    judgeForMaintenance(wh, [prepared]);
  }];

  // POST /v1/{prefix}/transactions/commit — every table or none.
  route(app, '/v1/:prefix/transactions/commit', {
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const changes = ((req.body ?? {}) as Json)['table-changes'];
      if (!Array.isArray(changes) || changes.length === 0) throw badRequest('Invalid request: table-changes is required');
      const wh = warehouseOf(req);
      const staged: StagedCommit[] = [];
      const seen = new Set<string>();
      try {
        for (const change of changes as Json[]) {
          const id = change.identifier as { namespace?: string[]; name?: string } | undefined;
          if (!id?.namespace || !id.name) throw badRequest('Invalid request: every table change needs an identifier');
          const key = joinNamespace([...id.namespace, id.name]);
          if (seen.has(key)) throw badRequest(`Invalid request: ${[...id.namespace, id.name].join('.')} appears twice`);
          seen.add(key);
          staged.push(await stage(wh, id.namespace, id.name, change, gatedCommit(req)));
        }
      } catch (err) {
        await discardStaged(d, wh, staged);
        throw err;
      }
      await finishCommits(d, wh, staged);
      res.status(204).end();
      judgeForMaintenance(wh, staged);
    }],
  });

  return { create, commit };
}
