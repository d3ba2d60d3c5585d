import type { Express, Request } from 'express';
import { requireLevel } from '@floe/accounts';
import { CreateTableBody, NamespaceRefFields, TableRefFields } from '@floe/api';
import { tableWarehouse, type VisibleWarehouse } from '@floe/catalogs';
import { badRequest, idempotent, parse, route, writeAudit } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { nsName } from '../domain/tables/catalog-tables';
import { dropNamespace, dropTable } from '../domain/tables/table-delete';
import { maintenanceSummary } from '../domain/tables/table-maintenance';
import { keysToRemove, propertiesToSet } from '../domain/tables/table-properties';
import { createTable, listNamespaces, listTables, readTable, requestedFormatVersion, updateTableProperties, v3Warnings, vendTableCredentials } from '../domain/tables/tables';
import { refuseOverQuota } from '../domain/usage/quota';
import { formatInfo } from '../domain/warehouses/formats';

// Spec: Tables, credentials, connection — the routes that act on tables
// through the Iceberg REST catalog as the warehouse's own identity. DELETE
// /v1/table and DELETE /v1/namespace are in the error index only; their
// shapes (warehouse_id, namespace, name in the body or the query) are in docs/api.md.

/** A request's fields before they are parsed: the body or the query, whatever the client sent. */
type Fields = Record<string, unknown>;

/** A DELETE's reference: from the body, or the query (clients that send no body on DELETE). */
const deleteRef = (req: Request): Fields => {
  const src: Fields = { ...req.query, ...((req.body && typeof req.body === 'object' && !Array.isArray(req.body)) ? req.body as Fields : {}) };
  return { ...src, warehouse_id: str(src.warehouse_id) ?? str(src.warehouse) ?? src.warehouse_id };
};


export function mountTables(app: Express, d: ControlPlaneDeps): void {
  /** A warehouse from `warehouse_id` or its alias `warehouse` (query or body). */
  const warehouseOf = (req: Request, source: Fields): Promise<VisibleWarehouse> => tableWarehouse(d.prisma, req.access!, source);

  route(app, '/v1/namespaces', {
    get: [...d.authed, async (req, res) => {
      const w = await warehouseOf(req, req.query);
      const all = await listNamespaces(d, w);
      res.json({ warehouse: w.name, warehouse_id: w.id, namespaces: all.map((ns) => ({ namespace: nsName(ns) })) });
    }],
  });

  route(app, '/v1/tables', {
    get: [...d.authed, async (req, res) => {
      const w = await warehouseOf(req, req.query);
      const { searched, tables } = await listTables(d, w, str(req.query.namespace));
      res.json({ warehouse: w.name, warehouse_id: w.id, namespaces_searched: searched, tables });
    }],
    post: [...d.authed, idempotent(d.idempotency, 'POST /v1/tables'), async (req, res) => {
      const raw = (req.body ?? {}) as Fields;
      const body = parse(CreateTableBody, { ...raw, warehouse_id: str(raw.warehouse_id) ?? str(raw.warehouse) ?? raw.warehouse_id });
      const w = await warehouseOf(req, body);
      await requireLevel(d.prisma, w, 'write', 'creating a table');
      const requested = requestedFormatVersion(body.format_version);
      const { metadata: m, version, real, v3Columns } = await createTable(d, req, w, { namespace: body.namespace, name: body.name, schema: body.schema, requested });
      const info = formatInfo(real);
      await writeAudit(d.db, req, { action: 'table.create', orgId: w.orgId, targetType: 'table', targetId: m['table-uuid'], data: { warehouse_id: w.id, table: `${body.namespace}.${body.name}`, format_version: real } });
      res.status(201).json({
        table: `${body.namespace}.${body.name}`,
        warehouse_id: w.id,
        warehouse: w.name,
        namespace: body.namespace,
        name: body.name,
        table_uuid: m['table-uuid'],
        location: m.location,
        format_version: real,
        format_version_requested: requested ?? null,
        format_version_source: requested === null ? 'catalog_default' : 'request',
        format_version_honoured: real === version,
        writers: info.writers,
        readers: info.readers,
        note: info.note,
        ...(real === 3 ? { warnings: v3Warnings(), v3_columns: v3Columns } : {}),
      });
    }],
  });

  route(app, '/v1/table', {
    get: [...d.authed, async (req, res) => {
      const ref = parse(TableRefFields, { ...req.query, warehouse_id: str(req.query.warehouse_id) ?? str(req.query.warehouse) }, 'query');
      const w = await warehouseOf(req, ref);
      const view = await readTable(d, w, ref.namespace, ref.name);
      const info = formatInfo(view.format_version === 3 ? 3 : 2);
      const maintenance = await maintenanceSummary(d.prisma, w, ref.namespace, ref.name);
      res.json({ ...view, warehouse: w.name, warehouse_id: w.id, writers: info.writers, readers: info.readers, note: info.note, maintenance, ...(view.format_version === 3 ? { warnings: v3Warnings() } : {}) });
    }],
    delete: [...d.authed, async (req, res) => {
      const ref = parse(TableRefFields, deleteRef(req));
      const w = await warehouseOf(req, ref);
      await requireLevel(d.prisma, w, 'write', 'deleting a table');
      const { tableUuid, location } = await dropTable(d, w, ref.namespace, ref.name);
      const table = `${ref.namespace}.${ref.name}`;
      await writeAudit(d.db, req, { action: 'table.delete', orgId: w.orgId, targetType: 'table', targetId: tableUuid, data: { warehouse_id: w.id, table, location } });
      res.json({
        table, namespace: ref.namespace, name: ref.name, warehouse: w.name, warehouse_id: w.id, table_uuid: tableUuid, location, dropped: true,
        purge: { status: 'queued', note: 'The catalog deletes the files under the table\'s location within seconds, only those no other table or view holds.' },
      });
    }],
    patch: [...d.authed, async (req, res) => {
      const body = (req.body ?? {}) as Fields;
      const ref = parse(TableRefFields, { ...body, warehouse_id: str(body.warehouse_id) ?? str(body.warehouse) });
      const set = propertiesToSet(body.properties);
      const remove = keysToRemove(body.remove);
      if (Object.keys(set).length === 0 && remove.length === 0) {
        throw badRequest('missing_field', 'send properties{} to set and/or remove[] to remove', { field: 'properties' });
      }
      const w = await warehouseOf(req, ref);
      await requireLevel(d.prisma, w, 'write', 'changing table properties');
      const { tableUuid, previous, after } = await updateTableProperties(d, w, ref.namespace, ref.name, set, remove);
      const touched = [...Object.keys(set), ...remove];
      await writeAudit(d.db, req, {
        action: 'table.update', orgId: w.orgId, targetType: 'table', targetId: tableUuid,
        data: { warehouse_id: w.id, table: `${ref.namespace}.${ref.name}`, set, removed: remove, previous: Object.fromEntries(touched.map((k) => [k, previous[k] ?? null])) },
      });
      res.json({
        table: `${ref.namespace}.${ref.name}`,
        namespace: ref.namespace,
        name: ref.name,
        warehouse: w.name,
        warehouse_id: w.id,
        properties: after.metadata.properties ?? {},
        set: Object.keys(set),
        removed: remove,
        metadata_location: after['metadata-location'],
      });
    }],
  });

  route(app, '/v1/namespace', {
    delete: [...d.authed, async (req, res) => {
      const ref = parse(NamespaceRefFields, deleteRef(req));
      const w = await warehouseOf(req, ref);
      await requireLevel(d.prisma, w, 'write', 'deleting a namespace');
      await dropNamespace(d, w, ref.namespace);
      await writeAudit(d.db, req, { action: 'namespace.delete', orgId: w.orgId, targetType: 'namespace', targetId: `${w.id}/${ref.namespace}`, data: { warehouse_id: w.id, namespace: ref.namespace } });
      res.json({ warehouse: w.name, warehouse_id: w.id, namespace: ref.namespace, dropped: true });
    }],
  });

  route(app, '/v1/credentials', {
    post: [...d.authed, async (req, res) => {
      const body = (req.body ?? {}) as Fields;
      const ref = parse(TableRefFields, { ...body, warehouse_id: str(body.warehouse_id) ?? str(body.warehouse) });
      const w = await warehouseOf(req, ref);
      if (w.access.level !== 'write') {
        await requireLevel(d.prisma, w, 'write', 'storage credentials (read holders use the read-only catalog credential from GET /v1/connection?level=read)');
      }
      await refuseOverQuota(d, req, w, 'credentials.vend');
      const { tableUuid, location, keyPrefix, credentials: c } = await vendTableCredentials(d, w, ref.namespace, ref.name);
      await writeAudit(d.db, req, { action: 'credentials.vend', orgId: w.orgId, targetType: 'table', targetId: tableUuid, data: { warehouse_id: w.id, table: `${ref.namespace}.${ref.name}` } });
      res.json({
        warehouse_id: w.id,
        warehouse: w.name,
        table: `${ref.namespace}.${ref.name}`,
        location,
        bucket: w.tableBucket,
        prefix: keyPrefix,
        endpoint: d.config.s3Url,
        region: d.config.s3.region,
        path_style: true,
        credentials: {
          access_key_id: c.accessKeyId,
          secret_access_key: c.secretAccessKey,
          session_token: c.sessionToken,
          expires_at: c.expiresAtMs ? new Date(c.expiresAtMs).toISOString() : null,
        },
        note: 'A storage session confined to this table\'s location; it runs out within 900 s.',
      });
    }],
  });
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
