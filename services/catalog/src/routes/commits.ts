import { randomUUID } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import {
  InvalidUpdateError, newTableMetadata, parseTableRequirements, parseTableUpdates, serializeTableMetadata,
  type FormatVersion, type TableRequirement, type TableUpdate,
} from '@floe/iceberg';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { commitFailed, deleteDroppedMetadata, discardUnreferenced, prepareCommit, swapAll, type PreparedCommit } from '../commit';
import { alreadyExists, badRequest, noSuchNamespace, noSuchTable } from '../errors';
import { getNamespace } from '../store/namespaces';
import { findTable, insertTable, nameTaken } from '../store/tables';
import type { WarehouseRow } from '../store/warehouses';
import { vendTableCredentials } from '../vended-credentials';
import { requirePrefix, requireWrite } from './prefix';
import { namespaceOf, warehouseOf } from './tables';

type Json = Record<string, unknown>;

function parseCommitParts(body: Json): { requirements: TableRequirement[]; updates: TableUpdate[] } {
  try {
    return { requirements: parseTableRequirements(body.requirements ?? []), updates: parseTableUpdates(body.updates ?? []) };
  } catch (err) {
    throw badRequest(`Invalid commit: ${(err as Error).message}`);
  }
}

/** The table's metadata text as LoadTableResult, with vended credentials when asked. */
async function sendLoadResult(d: CatalogDeps, req: Request, res: Response, wh: WarehouseRow, location: string | null, text: string, tableLocation: string): Promise<void> {
  const config: Record<string, string> = {};
  let credentials = '';
  if ((req.get('x-iceberg-access-delegation') ?? '').includes('vended-credentials')) {
    const cred = await vendTableCredentials(d.storage, wh, tableLocation, req.catalogCaller!.access, { endpoint: d.config.s3Url, region: d.config.s3.region });
    Object.assign(config, cred.config);
    credentials = `,"storage-credentials":${JSON.stringify([cred])}`;
  }
  res.status(200).type('application/json')
    .send(`{"metadata-location":${JSON.stringify(location)},"metadata":${text},"config":${JSON.stringify(config)}${credentials}}`);
}

function tableLocationFor(wh: WarehouseRow, ns: string[], name: string, asked: unknown): string {
  const root = `s3://${wh.tableBucket}/`;
  if (asked === undefined || asked === null) return `${root}${ns.map(encodeURIComponent).join('/')}/${encodeURIComponent(name)}-${randomUUID().replace(/-/g, '')}`;
  if (typeof asked !== 'string' || !asked.startsWith(root) || asked.length === root.length || asked.includes('..')) {
    throw badRequest(`Table location must be under ${root}`);
  }
  return asked.replace(/\/+$/, '');
}

export function mountCommits(app: Express, d: CatalogDeps): Record<'create' | 'commit', import('express').RequestHandler[]> {
  const auth = d.auth.requireCaller();

  // POST /v1/{prefix}/namespaces/{namespace}/tables — create, or stage-create.
  const create = [auth, requirePrefix, requireWrite, async (req: Request, res: Response) => {
    const ns = namespaceOf(req);
    const body = (req.body ?? {}) as Json;
    const name = body.name;
    if (typeof name !== 'string' || name.length === 0 || name.length > 255) throw badRequest('Invalid request: name is required');
    if (!body.schema || typeof body.schema !== 'object') throw badRequest('Invalid request: schema is required');
    const wh = await warehouseOf(d, req);
    if (!(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
    if (await nameTaken(d.db, wh.id, ns, name)) throw alreadyExists(`Table ${[...ns, name].join('.')}`);
    const location = tableLocationFor(wh, ns, name, body.location);
    const properties = (body.properties ?? {}) as Record<string, string>;
    let meta;
    try {
      meta = newTableMetadata({
        location,
        schema: body.schema as never,
        partitionSpec: body['partition-spec'] as never,
        sortOrder: body['write-order'] as never,
        properties,
        formatVersion: properties['format-version'] ? (Number(properties['format-version']) as FormatVersion) : undefined,
      });
    } catch (err) {
      if (err instanceof InvalidUpdateError) throw badRequest(err.message);
      throw err;
    }
    const text = serializeTableMetadata(meta);
    if (body['stage-create'] === true) return sendLoadResult(d, req, res, wh, null, text, location);
    const metadataLocation = `${location}/metadata/00000-${randomUUID()}.metadata.json`;
    const s3 = d.storage.objectsAs(wh.rw);
    await d.metadata.write(s3, metadataLocation, text);
    if (!(await insertTable(d.db, { id: randomUUID(), warehouseId: wh.id, namespace: ns, name, kind: 'table', metadataLocation }))) {
      await discardUnreferenced(s3, metadataLocation);
      throw alreadyExists(`Table ${[...ns, name].join('.')}`);
    }
    return sendLoadResult(d, req, res, wh, metadataLocation, text, location);
  }];

  /** Prepares and writes one table's commit (without swapping). */
  async function stage(wh: WarehouseRow, ns: string[], name: string, body: Json): Promise<PreparedCommit & { namespace: string[]; name: string }> {
    const { requirements, updates } = parseCommitParts(body);
    const row = await findTable(d.db, wh.id, ns, name);
    const creating = requirements.some((r) => r.type === 'assert-create');
    if (!row && !creating) {
      if (!(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
      throw noSuchTable(ns, name);
    }
    if (row && creating) throw commitFailed(`Requirement failed: table ${[...ns, name].join('.')} already exists`);
    if (!row && !(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
    const prepared = await prepareCommit(d.metadata, d.storage.objectsAs(wh.rw), row, requirements, updates);
    if (prepared.nextLocation) await d.metadata.write(d.storage.objectsAs(wh.rw), prepared.nextLocation, prepared.nextText);
    return { ...prepared, namespace: ns, name };
  }

  async function finish(wh: WarehouseRow, commits: Array<PreparedCommit & { namespace: string[]; name: string }>): Promise<void> {
    const s3 = d.storage.objectsAs(wh.rw);
    try {
      await swapAll(d.db, wh.id, commits);
    } catch (err) {
      for (const c of commits) await discardUnreferenced(s3, c.nextLocation);
      throw err;
    }
    for (const c of commits) await deleteDroppedMetadata(s3, c);
  }

  // POST /v1/{prefix}/namespaces/{namespace}/tables/{table} — commit.
  const commit = [auth, requirePrefix, requireWrite, async (req: Request, res: Response) => {
    const ns = namespaceOf(req);
    const wh = await warehouseOf(d, req);
    const prepared = await stage(wh, ns, String(req.params.table), (req.body ?? {}) as Json);
    await finish(wh, [prepared]);
    const location = prepared.nextLocation ?? prepared.currentLocation!;
    res.status(200).type('application/json').send(`{"metadata-location":${JSON.stringify(location)},"metadata":${prepared.nextText}}`);
  }];

  // POST /v1/{prefix}/transactions/commit — every table or none.
  route(app, '/v1/:prefix/transactions/commit', {
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const changes = ((req.body ?? {}) as Json)['table-changes'];
      if (!Array.isArray(changes) || changes.length === 0) throw badRequest('Invalid request: table-changes is required');
      const wh = await warehouseOf(d, req);
      const staged: Array<PreparedCommit & { namespace: string[]; name: string }> = [];
      const seen = new Set<string>();
      try {
        for (const change of changes as Json[]) {
          const id = change.identifier as { namespace?: string[]; name?: string } | undefined;
          if (!id?.namespace || !id.name) throw badRequest('Invalid request: every table change needs an identifier');
          const key = [...id.namespace, id.name].join('\u001f');
          if (seen.has(key)) throw badRequest(`Invalid request: ${[...id.namespace, id.name].join('.')} appears twice`);
          seen.add(key);
          staged.push(await stage(wh, id.namespace, id.name, change));
        }
      } catch (err) {
        for (const c of staged) await discardUnreferenced(d.storage.objectsAs(wh.rw), c.nextLocation);
        throw err;
      }
      await finish(wh, staged);
      res.status(204).end();
    }],
  });

  return { create, commit };
}
