import type { Express, Request, RequestHandler, Response } from 'express';
import { joinNamespace, parseCreateTableRequest, parseTableRequirements, parseTableUpdates, type CreateTableRequest, type TableRequirement, type TableUpdate } from '@floe/iceberg';
import { COMMIT_GATE_HEADER } from '@floe/db/commit-gate';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { discardStaged, finishCommits, type StagedCommit } from '../commit';
import { createTable } from '../domain/table-create';
import { judgeForMaintenance, stageTableCommit } from '../domain/table-commit';
import { badRequest } from '../errors';
import { sendLoadResult } from '../responses';
import { requirePrefix, requireWrite } from '../guards';
import { namespaceOf, warehouseOf } from '../request';
import { auditEngineAct, tableName } from '../domain/engine-audit';

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

/** Whether a commit waits at its tables' commit gates: all but a gate holder's own. */
const gatedCommit = (req: Request) => req.get(COMMIT_GATE_HEADER) === undefined;

export function mountCommits(app: Express, d: CatalogDeps): Record<'create' | 'commit', RequestHandler[]> {
  const auth = d.auth.requireCaller();

  // POST /v1/{prefix}/namespaces/{namespace}/tables — create, or stage-create.
  const create = [auth, requirePrefix, requireWrite, async (req: Request, res: Response) => {
    const ns = namespaceOf(req);
    const body = parseCreateRequest(req.body);
    const wh = warehouseOf(req);
    const created = await createTable(d, wh, ns, body);
    await sendLoadResult(d, req, res, wh, created, tableName(ns, body.name));
    if (created.metadataLocation) auditEngineAct(d, req, { action: 'table.create', table: tableName(ns, body.name), data: { metadata_location: created.metadataLocation } });
  }];

  // POST /v1/{prefix}/namespaces/{namespace}/tables/{table} — commit.
  const commit = [auth, requirePrefix, requireWrite, async (req: Request, res: Response) => {
    const ns = namespaceOf(req);
    const wh = warehouseOf(req);
    const prepared = await stageTableCommit(d, wh, ns, String(req.params.table), parseCommitParts((req.body ?? {}) as Json), gatedCommit(req));
    await finishCommits(d, wh, [prepared]);
    const location = prepared.nextLocation ?? prepared.currentLocation!;
    res.status(200).type('application/json').send(`{"metadata-location":${JSON.stringify(location)},"metadata":${prepared.nextText}}`);
    judgeForMaintenance(d, wh, [prepared]);
    auditCommits(d, req, [prepared]);
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
          staged.push(await stageTableCommit(d, wh, id.namespace, id.name, parseCommitParts(change), gatedCommit(req)));
        }
      } catch (err) {
        await discardStaged(d, wh, staged);
        throw err;
      }
      await finishCommits(d, wh, staged);
      res.status(204).end();
      judgeForMaintenance(d, wh, staged);
      auditCommits(d, req, staged);
    }],
  });

  return { create, commit };
}

/** Each table a commit changed: `table.update`, coalesced per minute (a staged create's first commit is its `table.create`). */
function auditCommits(d: CatalogDeps, req: Request, staged: StagedCommit[]): void {
  for (const c of staged) {
    if (!c.nextLocation) continue;
    const table = tableName(c.namespace, c.name);
    if (!c.row) auditEngineAct(d, req, { action: 'table.create', table, data: { metadata_location: c.nextLocation, staged: true } });
    else auditEngineAct(d, req, { action: 'table.update', table, coalesce: true, data: { metadata_location: c.nextLocation } });
  }
}
