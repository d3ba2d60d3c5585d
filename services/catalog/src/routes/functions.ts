import type { Express, Request } from 'express';
import { route } from '@floe/http';
import { deleteFunction, getFunction, listFunctions, putFunction } from '@floe/catalog-store';
import { functionMetadataProblems, stringifyJson } from '@floe/iceberg';
import type { CatalogDeps } from '../deps';
import { requireNamespace } from '../domain/namespaces';
import { badRequest, IcebergError } from '../errors';
import { requirePrefix, requireWrite } from '../guards';
import { namespaceLevelProblem } from '../namespace-names';
import { pageOf, pageParams } from '../paging';
import { namespaceOf } from '../request';

// Functions (UDFs) of a namespace: the REST document's listFunctions and
// loadFunction, and — since the document gives no way to make one — Floe's
// own PUT (create or replace, with the UDF metadata as the body, checked as
// the document's FunctionMetadata and for consistency) and DELETE, which
// need the read/write credential. The metadata is kept whole in the
// database; loadFunction answers it without a metadata-location.

const noSuchFunction = (ns: string[], name: string) => new IcebergError(404, 'NoSuchFunctionException', `Function does not exist: ${[...ns, name].join('.')}`);

export function mountFunctions(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();
  const scope = async (req: Request) => {
    const ns = namespaceOf(req);
    await requireNamespace(d.db, req.catalogCaller!.warehouseId, ns);
    return { ns, warehouseId: req.catalogCaller!.warehouseId };
  };

  route(app, '/v1/:prefix/namespaces/:namespace/functions', {
    get: [auth, requirePrefix, async (req, res) => {
      const { ns, warehouseId } = await scope(req);
      const { after, pageSize } = pageParams(req);
      const { page, next } = pageOf(await listFunctions(d.db, warehouseId, ns, after, pageSize + 1), pageSize, (n) => n);
      res.json({ identifiers: page.map((name) => [...ns, name]), ...(next ? { 'next-page-token': next } : {}) });
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/functions/:function', {
    get: [auth, requirePrefix, async (req, res) => {
      const { ns, warehouseId } = await scope(req);
      const name = String(req.params.function);
      const metadata = await getFunction(d.db, warehouseId, ns, name);
      if (metadata === null) throw noSuchFunction(ns, name);
      res.status(200).type('application/json').send(`{"metadata":${metadata}}`);
    }],
    put: [auth, requirePrefix, requireWrite, async (req, res) => {
      const name = String(req.params.function);
      const nameProblem = namespaceLevelProblem(name);
      if (nameProblem) throw badRequest(`Invalid function name: ${nameProblem.replace(/namespace level/g, 'name')}`);
      const problems = functionMetadataProblems(req.body);
      if (problems.length) throw badRequest(`Invalid function metadata: ${problems.slice(0, 5).join('; ')}`);
      const { ns, warehouseId } = await scope(req);
      const text = stringifyJson(req.body);
      const created = await putFunction(d.db, warehouseId, ns, name, text);
      res.status(created ? 201 : 200).type('application/json').send(`{"metadata":${text}}`);
    }],
    delete: [auth, requirePrefix, requireWrite, async (req, res) => {
      const { ns, warehouseId } = await scope(req);
      const name = String(req.params.function);
      if (!(await deleteFunction(d.db, warehouseId, ns, name))) throw noSuchFunction(ns, name);
      res.status(204).end();
    }],
  });
}
